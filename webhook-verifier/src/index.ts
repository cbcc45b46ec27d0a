export { Webhook, type RawBody, type WebhookOptions } from './webhook.js';
export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export type { HeaderRecord, HeadersLike, WebhookHeaders } from './headers.js';
export type { PaymentSnapshot, PaymentStatus, WebhookEvent, WebhookEventType } from './events.js';
export {
  EventProcessor,
  memoryStore,
  type EventProcessorOptions,
  type EventStore,
  type ProcessResult,
} from './processor.js';
export {
  sqlStore,
  sqlStoreSchema,
  type SqlDialect,
  type SqlQuery,
  type SqlStore,
  type SqlStoreOptions,
} from './sqlStore.js';
