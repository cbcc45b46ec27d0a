/**
 * The data-collection form (payment-gateway-spec.md, "CollectData"): one table of fields, from which the JSON Schema
 * (what wallets, the web form and the server validate with) and the deprecated flat `fields` list are both derived,
 * so the two descriptions cannot disagree.
 */
import type { components } from '../generated/gateway.js';

export type CollectData = components['schemas']['CollectData'];
export type CollectDataField = components['schemas']['CollectDataField'];

/** The data a buyer gives, once it has passed `collectDataSchema`. */
export interface CollectedData {
  fullName: string;
  /** `YYYY-MM-DD` */
  dob: string;
  /** ISO 3166-1 alpha-2 */
  pobCountry?: string;
  pobAddress?: string;
  /** ISO 3166-1 alpha-2 */
  porCountry?: string;
  porAddress?: string;
  tosConfirmed: true;
}

type PropertyName = keyof CollectedData;

interface FieldSpec {
  id: PropertyName;
  /** The JSON Schema `title`. */
  title: string;
  description: string;
  /** The deprecated `fields` list's label, which reads as a form label (a checkbox's is a sentence). */
  label: string;
  kind: CollectDataField['type'];
  /** Whether the field must always be present; the address pairs are required only as a pair (`anyOf`). */
  required: boolean;
  /** JSON Schema keywords beyond `type`. */
  rules: Record<string, unknown>;
}

const COUNTRY_PATTERN = '^[A-Z]{2}$';

/** In display order. */
const FIELD_SPECS: FieldSpec[] = [
  {
    id: 'fullName',
    title: 'Full name',
    description: "The buyer's full legal name.",
    label: 'Full name',
    kind: 'text',
    required: true,
    rules: { minLength: 1 },
  },
  {
    id: 'dob',
    title: 'Date of birth',
    description: 'Date of birth, YYYY-MM-DD.',
    label: 'Date of birth',
    kind: 'date',
    required: true,
    rules: { format: 'date' },
  },
  {
    id: 'pobCountry',
    title: 'Place of birth (country)',
    description: 'Country of birth, ISO 3166-1 alpha-2 code.',
    label: 'Place of birth (country)',
    kind: 'text',
    required: false,
    rules: { pattern: COUNTRY_PATTERN },
  },
  {
    id: 'pobAddress',
    title: 'Place of birth (city and state)',
    description: "City and state of birth, for example 'New York, NY'.",
    label: 'Place of birth (city and state)',
    kind: 'text',
    required: false,
    rules: { maxLength: 200 },
  },
  {
    id: 'porCountry',
    title: 'Place of residence (country)',
    description: 'Country of residence, ISO 3166-1 alpha-2 code.',
    label: 'Place of residence (country)',
    kind: 'text',
    required: false,
    rules: { pattern: COUNTRY_PATTERN },
  },
  {
    id: 'porAddress',
    title: 'Place of residence (address)',
    description: 'Street address, city and state of residence.',
    label: 'Place of residence (address)',
    kind: 'text',
    required: false,
    rules: { maxLength: 200 },
  },
  {
    id: 'tosConfirmed',
    title: 'Terms of service',
    description: 'Must be true to confirm acceptance of the terms of service.',
    label: 'I accept the terms of service',
    kind: 'checkbox',
    required: true,
    rules: { const: true },
  },
];

/** Either pair is enough: where the buyer was born, or where they live. */
const ADDRESS_PAIRS: PropertyName[][] = [
  ['pobCountry', 'pobAddress'],
  ['porCountry', 'porAddress'],
];

export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

function buildSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of FIELD_SPECS) {
    properties[f.id] = {
      type: f.kind === 'checkbox' ? 'boolean' : 'string',
      title: f.title,
      description: f.description,
      ...f.rules,
    };
  }
  return {
    $schema: JSON_SCHEMA_2020_12,
    type: 'object',
    properties,
    required: FIELD_SPECS.filter((f) => f.required).map((f) => f.id),
    additionalProperties: false,
    anyOf: ADDRESS_PAIRS.map((pair) => ({ required: pair })),
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The schema every `CollectData` carries; frozen, since every answer shares it. */
export const collectDataSchema: Readonly<Record<string, unknown>> = deepFreeze(buildSchema());

/** The deprecated flat description of the same form. */
export const collectDataFields: readonly CollectDataField[] = deepFreeze(
  FIELD_SPECS.map((f) => ({ id: f.id, name: f.label, required: f.required, type: f.kind })),
);

/** A property's position in the form, for ordering messages; unknown names come last. */
export function fieldOrder(id: string): number {
  const index = FIELD_SPECS.findIndex((f) => f.id === id);
  return index < 0 ? FIELD_SPECS.length : index;
}

/** The address pairs, for the message that explains the `anyOf`. */
export const addressPairs: readonly (readonly string[])[] = ADDRESS_PAIRS;
