/**
 * What the server tells the data-collection form (`GET /collect/{paymentId}`), in a JSON block of the HTML
 * (`#paygate-config`), which is data and never executed: the JSON Schema to build the inputs from, or, when the link
 * or the payment does not allow the form, the refusal to show and to tell the wallet (docs/decisions.md §16).
 */

/** The JSON Schema keywords the form understands; the server validates again with the full schema. */
export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  const?: unknown;
}

export interface FormSchema {
  properties?: Record<string, FieldSchema>;
  required?: string[];
  /** Alternatives, each a list of fields required together (the address pairs). */
  anyOf?: { required?: string[] }[];
}

export type CollectPageConfig = { schema: FormSchema } | { error: { code: string; message: string } };
