import { retrySettings as coreRetrySettings, type RetrySettings } from '@paygate/client-core';

export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. Default 2. */
  retries?: number;
  /** The backoff's first ceiling; each retry doubles it. Default 500. */
  baseDelayMs?: number;
  /** The backoff's largest ceiling. Default 5000. */
  maxDelayMs?: number;
}

// Not frozen, unlike the wallet's: it has always been a plain object, and a change to it applies to later clients.
export const DEFAULT_RETRY: Required<RetryOptions> = { retries: 2, baseDelayMs: 500, maxDelayMs: 5000 };

/** The merchant's options hold numbers only; anything else given in them, `undefined` included, is refused. */
export function retrySettings(options: RetryOptions | undefined): RetrySettings {
  return coreRetrySettings(options, { defaults: DEFAULT_RETRY, numbersOnly: true });
}
