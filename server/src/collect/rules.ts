/**
 * When a payment requires the buyer's data, and whether given data is acceptable. The validator is the contract's
 * own schema compiled by Ajv (JSON Schema 2020-12), the same document wallets receive, so the server accepts exactly
 * what the schema it publishes describes.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { addressPairs, collectDataSchema, fieldOrder, type CollectedData } from './schema.js';

/**
 * Data is required when the merchant asks for it on every payment, or when the amount reaches its currency's
 * threshold (`PAYGATE_COLLECT_DATA_THRESHOLDS`, minor units). Only fiat amounts (`iso4217/…`) have thresholds.
 */
export function collectDataRequired(input: {
  merchantCollectData: boolean;
  amount: { unit: string; value: string };
  thresholds: Map<string, bigint>;
}): boolean {
  if (input.merchantCollectData) return true;
  const currency = /^iso4217\/([A-Z]{3})$/.exec(input.amount.unit)?.[1];
  const threshold = currency === undefined ? undefined : input.thresholds.get(currency);
  if (threshold === undefined) return false;
  if (!/^[0-9]+$/.test(input.amount.value)) {
    throw new Error(`amount value "${input.amount.value}" is not a whole number of minor units`);
  }
  return BigInt(input.amount.value) >= threshold;
}

type AddFormats = (ajv: Ajv2020, formats: string[]) => Ajv2020;
const addFormats = addFormatsModule as unknown as AddFormats;

let compiled: ValidateFunction | null = null;

/** Compiled on first use and kept: compiling is the expensive part. */
function validator(): ValidateFunction {
  if (!compiled) {
    // Strict, except for the `anyOf` branches: bare `required` lists (no `type`, no `properties` of their own) are
    // the spec's way to say "one of the two pairs", and the root schema already declares both.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
    addFormats(ajv, ['date']);
    compiled = ajv.compile(collectDataSchema);
  }
  return compiled;
}

const MAX_MESSAGES = 5;

function fieldOf(error: ErrorObject): string {
  return error.instancePath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** One sentence per problem, naming the field and never quoting the value (it is personal data). */
function describe(error: ErrorObject): string | null {
  const params = error.params as Record<string, unknown>;
  if (error.instancePath === '') {
    switch (error.keyword) {
      case 'type':
        return 'The collected data must be a JSON object.';
      case 'required':
        // A branch of the address `anyOf`: reported once, by the anyOf error itself.
        if (error.schemaPath.startsWith('#/anyOf/')) return null;
        return `${String(params.missingProperty)} is required.`;
      case 'additionalProperties':
        return `${String(params.additionalProperty).slice(0, 60)} is not a field of this form.`;
      case 'anyOf':
        return `Either ${addressPairs.map((pair) => pair.join(' and ')).join(' or ')} must be given.`;
      default:
        return `The collected data ${error.message ?? 'is invalid'}.`;
    }
  }
  const field = fieldOf(error);
  switch (error.keyword) {
    case 'type':
      return `${field} must be a ${String(params.type)}.`;
    case 'minLength':
      return params.limit === 1
        ? `${field} must not be empty.`
        : `${field} must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters.`;
    case 'pattern':
      return params.pattern === '^[A-Z]{2}$'
        ? `${field} must be an ISO 3166-1 alpha-2 country code: two upper-case letters, such as US.`
        : `${field} must match the pattern ${String(params.pattern)}.`;
    case 'format':
      return params.format === 'date'
        ? `${field} must be a real date written YYYY-MM-DD.`
        : `${field} must be a valid ${String(params.format)}.`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}.`;
    default:
      return `${field} ${error.message ?? 'is invalid'}.`;
  }
}

/**
 * Problems in reading order: each field's (in form order, one per field), then missing fields, unknown fields and
 * the address rule last, since fixing a field's value often settles the rest.
 */
function rank(error: ErrorObject): number {
  if (error.instancePath !== '') return fieldOrder(fieldOf(error));
  if (error.keyword === 'required')
    return 100 + fieldOrder(String((error.params as Record<string, unknown>).missingProperty));
  return error.keyword === 'anyOf' ? 300 : 200;
}

/** Checks data against the schema; the message lists the problems (at most five) for a person to fix. */
export function validateCollectedData(
  data: unknown,
): { ok: true; value: CollectedData } | { ok: false; message: string } {
  const validate = validator();
  if (validate(data)) return { ok: true, value: data as CollectedData };
  const messages: string[] = [];
  const fieldsSeen = new Set<string>();
  const errors = [...(validate.errors ?? [])].sort((a, b) => rank(a) - rank(b));
  for (const error of errors) {
    if (error.instancePath !== '') {
      // One problem per field: a wrong type makes the field's other rules moot.
      if (fieldsSeen.has(error.instancePath)) continue;
      fieldsSeen.add(error.instancePath);
    }
    const message = describe(error);
    if (message !== null && !messages.includes(message)) messages.push(message);
  }
  const shown = messages.slice(0, MAX_MESSAGES);
  const more = messages.length - shown.length;
  const text = shown.join(' ') || 'The collected data is invalid.';
  return { ok: false, message: more > 0 ? `${text} (and ${more} more)` : text };
}
