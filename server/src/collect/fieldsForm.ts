/**
 * WalletConnect Pay's form of collected data, `{fields: [{id, value}]}` with every value a string, read as the object
 * form that `collectDataSchema` validates (docs/decisions.md §28). Only the types change: a checkbox's `"true"` or
 * `"false"` becomes its boolean, so `tosConfirmed: "true"` means what the schema's `const: true` asks; any other
 * value stays as sent and the schema judges it, naming the field as it would in the object form.
 */
import { ApiError } from '../errors.js';
import { collectDataFields } from './schema.js';

const CHECKBOXES = new Set(collectDataFields.filter((f) => f.type === 'checkbox').map((f) => f.id));

interface FieldAnswer {
  id: string;
  value: string;
}

function isFieldsForm(data: object): data is { fields: FieldAnswer[] } {
  const keys = Object.keys(data);
  return keys.length === 1 && keys[0] === 'fields' && Array.isArray((data as { fields: unknown }).fields);
}

function checkboxValue(value: string): boolean | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** The object form of either form; the contract has already checked the shape of each `{id, value}`. */
export function collectedDataObject(data: object): Record<string, unknown> {
  if (!isFieldsForm(data)) return data as Record<string, unknown>;
  const answer: Record<string, unknown> = {};
  for (const { id, value } of data.fields) {
    if (Object.hasOwn(answer, id)) {
      throw new ApiError('params_validation', `collectedData: the field ${id} is given more than once.`);
    }
    // defineProperty, not assignment: an id such as `__proto__` must stay a property the schema can refuse.
    Object.defineProperty(answer, id, {
      value: CHECKBOXES.has(id) ? checkboxValue(value) : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return answer;
}
