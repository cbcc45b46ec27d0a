/**
 * Data collection (travel rule): which payments require the buyer's identity data, the `CollectData` the options
 * answer carries, validation, sealed storage, and the web form (`routes/collect`). docs/decisions.md §16.
 */
import { collectDataFields, collectDataSchema, type CollectData } from './schema.js';
import { collectToken } from './token.js';

export { collectDataRequired, validateCollectedData } from './rules.js';
export { collectedDataObject } from './fieldsForm.js';
export { hasCollectedData, readCollectedData, saveCollectedData, type CollectStoreDeps } from './store.js';
export { collectToken, collectTokenMatches } from './token.js';
export { openCollectForm, submitCollectedData, type CollectFormDeps } from './submission.js';
export {
  collectDataFields,
  collectDataSchema,
  type CollectData,
  type CollectDataField,
  type CollectedData,
} from './schema.js';

/** The form's address for a payment: `<publicBaseUrl>/collect/<paymentId>?t=<token>`. */
export function collectFormUrl(paymentId: string, deps: { publicBaseUrl: string; optionSecret: Buffer }): string {
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return `${base}/collect/${encodeURIComponent(paymentId)}?t=${collectToken(paymentId, deps.optionSecret)}`;
}

/** What the options answer carries when the payment requires data: fresh copies, which the caller may change. */
export function collectDataFor(paymentId: string, deps: { publicBaseUrl: string; optionSecret: Buffer }): CollectData {
  return {
    fields: collectDataFields.map((f) => ({ ...f })),
    schema: structuredClone(collectDataSchema) as Record<string, unknown>,
    url: collectFormUrl(paymentId, deps),
  };
}
