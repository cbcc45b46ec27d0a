/**
 * @paygate/client-core: what @paygate/sdk-wallet and @paygate/sdk-merchant share (the error an answer becomes,
 * retries, waits, the fetch they call). Internal to the SDKs, which re-export what their users see.
 */
export { MAX_RETRY_AFTER_MS, backoff, retryAfterMs } from './backoff.js';
export { PaygateErrorBase, dataOf, readErrorAnswer, type ErrorAnswer, type FetchResult } from './errors.js';
export { fetchOrPlatform, type FetchLike } from './fetch.js';
export { replayOf, retryingFetch, type Replay, type RetryPolicy } from './retry.js';
export {
  DEFAULT_RETRY,
  retrySettings,
  type RetryNumbers,
  type RetryOptions,
  type RetrySettings,
  type RetrySettingsPolicy,
} from './retrySettings.js';
export { deadline, sleep, type Sleep } from './wait.js';
