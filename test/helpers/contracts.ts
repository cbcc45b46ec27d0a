import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

export const apis = ['gateway', 'merchant', 'dev', 'dashboard', 'ops'] as const;
export type ApiName = (typeof apis)[number];

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function loadBundled(api: ApiName): JsonObject {
  return parseYaml(readFileSync(join(process.cwd(), 'openapi/bundled', `${api}.yaml`), 'utf8')) as JsonObject;
}

export function bundledText(api: ApiName): string {
  return readFileSync(join(process.cwd(), 'openapi/bundled', `${api}.yaml`), 'utf8');
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** An Ajv for OpenAPI 3.1 schemas: JSON Schema 2020-12 plus the OpenAPI vocabulary keywords. */
export function contractAjv(doc: JsonObject): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
  addFormats(ajv);
  for (const keyword of ['example', 'xml', 'externalDocs', 'discriminator']) ajv.addKeyword(keyword);
  ajv.addSchema(doc as object, 'contract');
  return ajv;
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function resolvePointer(doc: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`external ref ${ref}`);
  let node: Json = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`unresolvable ref ${ref}`);
    node = (node as JsonObject)[key]!;
  }
  return node;
}

export interface ExampleSite {
  where: string;
  schemaPointer: string;
  value: Json;
}

const schemaChildren = [
  'items',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const schemaMaps = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const schemaLists = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

function isObject(node: Json | undefined): node is JsonObject {
  return typeof node === 'object' && node !== null && !Array.isArray(node);
}

/** Every example in a contract, paired with the schema it must satisfy. */
export function collectExamples(doc: JsonObject): ExampleSite[] {
  const sites: ExampleSite[] = [];
  const deref = (node: Json): Json =>
    isObject(node) && typeof node.$ref === 'string' ? deref(resolvePointer(doc, node.$ref)) : node;

  const walkSchema = (node: Json | undefined, pointer: string): void => {
    if (!isObject(node) || typeof node.$ref === 'string') return;
    if ('example' in node) sites.push({ where: `${pointer}/example`, schemaPointer: pointer, value: node.example! });
    if (Array.isArray(node.examples))
      node.examples.forEach((value, i) =>
        sites.push({ where: `${pointer}/examples/${i}`, schemaPointer: pointer, value }),
      );
    for (const key of schemaChildren) if (isObject(node[key])) walkSchema(node[key], `${pointer}/${key}`);
    for (const key of schemaMaps) {
      const map = node[key];
      if (isObject(map))
        for (const [name, child] of Object.entries(map)) walkSchema(child, `${pointer}/${key}/${escapePointer(name)}`);
    }
    for (const key of schemaLists) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((child, i) => walkSchema(child, `${pointer}/${key}/${i}`));
    }
  };

  // A media type, parameter or header: `schema` beside `example` or a map of named `examples`.
  const walkHolder = (node: Json | undefined, pointer: string): void => {
    if (!isObject(node) || typeof node.$ref === 'string') return;
    if (isObject(node.schema)) {
      const schemaPointer = `${pointer}/schema`;
      walkSchema(node.schema, schemaPointer);
      if ('example' in node) sites.push({ where: `${pointer}/example`, schemaPointer, value: node.example! });
      if (isObject(node.examples)) {
        for (const [name, ex] of Object.entries(node.examples)) {
          const resolved = deref(ex);
          if (isObject(resolved) && 'value' in resolved)
            sites.push({ where: `${pointer}/examples/${escapePointer(name)}`, schemaPointer, value: resolved.value! });
        }
      }
    }
    if (isObject(node.content))
      for (const [mt, media] of Object.entries(node.content))
        walkHolder(media, `${pointer}/content/${escapePointer(mt)}`);
    if (isObject(node.headers))
      for (const [name, header] of Object.entries(node.headers))
        walkHolder(header, `${pointer}/headers/${escapePointer(name)}`);
  };

  const walkOperation = (op: Json | undefined, pointer: string): void => {
    if (!isObject(op)) return;
    if (Array.isArray(op.parameters)) op.parameters.forEach((p, i) => walkHolder(p, `${pointer}/parameters/${i}`));
    walkHolder(op.requestBody, `${pointer}/requestBody`);
    if (isObject(op.responses))
      for (const [status, r] of Object.entries(op.responses))
        walkHolder(r, `${pointer}/responses/${escapePointer(status)}`);
  };

  for (const section of ['paths', 'webhooks'] as const) {
    const items = doc[section];
    if (!isObject(items)) continue;
    for (const [path, item] of Object.entries(items)) {
      if (!isObject(item)) continue;
      const base = `#/${section}/${escapePointer(path)}`;
      if (Array.isArray(item.parameters)) item.parameters.forEach((p, i) => walkHolder(p, `${base}/parameters/${i}`));
      for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'])
        walkOperation(item[method], `${base}/${method}`);
    }
  }
  const components = isObject(doc.components) ? doc.components : {};
  for (const [kind, map] of Object.entries(components)) {
    if (!isObject(map)) continue;
    for (const [name, node] of Object.entries(map)) {
      const pointer = `#/components/${kind}/${escapePointer(name)}`;
      if (kind === 'schemas') walkSchema(node, pointer);
      else if (kind === 'parameters' || kind === 'headers' || kind === 'responses' || kind === 'requestBodies')
        walkHolder(node, pointer);
    }
  }
  return sites;
}
