/**
 * Checks a real HTTP answer against the bundled contract, as a client reading the contract would: the status is one
 * the operation lists, the Content-Type is one of that answer's media types, every header it requires is there and
 * matches its schema, and the body matches the media type's schema. express-openapi-validator (the app's
 * `validateResponses`) checks JSON bodies only; this also checks text answers (`/metrics`) and headers.
 */
import assert from 'node:assert/strict';
import {
  contractAjv,
  escapePointer,
  loadBundled,
  resolvePointer,
  type ApiName,
  type Json,
  type JsonObject,
} from './contracts.js';

interface MediaType {
  schema?: Json;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: Json }>;
}

const docs = new Map<ApiName, { doc: JsonObject; ajv: ReturnType<typeof contractAjv> }>();
function contract(api: ApiName) {
  let found = docs.get(api);
  if (!found) {
    const doc = loadBundled(api);
    found = { doc, ajv: contractAjv(doc) };
    docs.set(api, found);
  }
  return found;
}

const deref = <T>(doc: JsonObject, node: T & { $ref?: string }): T =>
  node.$ref ? deref(doc, resolvePointer(doc, node.$ref) as T & { $ref?: string }) : node;

/**
 * Asserts that `res` (a GET of `path`) is an answer the contract `api` lists, and answers its body: parsed JSON for
 * a JSON media type, the text otherwise.
 */
export async function expectContractResponse(api: ApiName, path: string, res: Response): Promise<Json> {
  const { doc, ajv } = contract(api);
  const item = (doc.paths as Record<string, Record<string, JsonObject>>)[path];
  assert.ok(item?.get, `the ${api} contract has GET ${path}`);
  const operationId = String(item.get.operationId);
  const responses = item.get.responses as Record<string, ResponseObject>;
  const text = await res.text();
  const listed = responses[String(res.status)];
  assert.ok(listed, `${operationId}: status ${res.status} is not in the contract (body ${text.slice(0, 300)})`);
  const response = deref(doc, listed);
  const pointer = listed.$ref ?? `#/paths/${escapePointer(path)}/get/responses/${res.status}`;

  const contentType = res.headers.get('content-type') ?? '';
  const mediaTypes = Object.keys(response.content ?? {});
  // JSON answers carry a charset Express adds; the media type is what they must name. Other types are exact.
  const media = mediaTypes.find((m) =>
    m === 'application/json' ? /^application\/json(;|$)/.test(contentType) : m === contentType,
  );
  assert.ok(
    media,
    `${operationId} ${res.status}: Content-Type "${contentType}" is not one of ${mediaTypes.join(', ')}`,
  );

  const problems: string[] = [];
  for (const [name, raw] of Object.entries(response.headers ?? {})) {
    const header = deref(doc, raw);
    const value = res.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`header ${name} is required`);
      continue;
    }
    const where = raw.$ref ?? `${pointer}/headers/${escapePointer(name)}`;
    const validate = ajv.compile({ $ref: `contract${where}/schema` });
    if (!validate(value)) problems.push(`header ${name}: ${ajv.errorsText(validate.errors)}`);
  }

  const body: Json = media === 'application/json' ? (JSON.parse(text) as Json) : text;
  const validate = ajv.compile({ $ref: `contract${pointer}/content/${escapePointer(media)}/schema` });
  if (!validate(body)) problems.push(`body: ${ajv.errorsText(validate.errors)}`);
  assert.deepEqual(problems, [], `${operationId} ${res.status} against the ${api} contract`);
  return body;
}
