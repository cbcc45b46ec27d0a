import { sleep, type Sleep } from './wait.js';

export interface RetryOptions {
  /** Retries after the first attempt; 0 disables retrying. Default 2. */
  retries?: number;
  /** The backoff's first ceiling; each retry doubles it. Default 500. */
  baseDelayMs?: number;
  /** The backoff's largest ceiling. Default 5000. */
  maxDelayMs?: number;
  /** The jitter's source, a number in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** How the SDK waits between attempts (and between status polls). Default: a timer that the signal cancels. */
  sleep?: Sleep;
}

/** The numbers of the retry options, all given. */
export interface RetryNumbers {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetrySettings extends RetryNumbers {
  random: () => number;
  sleep: Sleep;
}

export const DEFAULT_RETRY: Readonly<RetryNumbers> = Object.freeze({
  retries: 2,
  baseDelayMs: 500,
  maxDelayMs: 5000,
});

export interface RetrySettingsPolicy {
  /** Read at each call. Default `DEFAULT_RETRY`. */
  defaults?: Readonly<RetryNumbers>;
  /**
   * For options that hold the numbers only (the merchant SDK's): every option given, `undefined` included, must be a
   * number >= 0, and the jitter and the wait are always the platform's. Otherwise an option left `undefined` takes
   * its default.
   */
  numbersOnly?: boolean;
}

/** The options completed with the defaults; throws a `TypeError` naming the first option that is not a number >= 0. */
export function retrySettings(options: RetryOptions | undefined, policy: RetrySettingsPolicy = {}): RetrySettings {
  const defaults = policy.defaults ?? DEFAULT_RETRY;
  const numbers: Record<string, unknown> = policy.numbersOnly
    ? { ...defaults, ...options }
    : {
        retries: options?.retries ?? defaults.retries,
        baseDelayMs: options?.baseDelayMs ?? defaults.baseDelayMs,
        maxDelayMs: options?.maxDelayMs ?? defaults.maxDelayMs,
      };
  for (const [name, value] of Object.entries(numbers)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${name} must be a number >= 0`);
    }
  }
  const { retries, baseDelayMs, maxDelayMs } = numbers as unknown as RetryNumbers;
  const functions = policy.numbersOnly ? undefined : options;
  return {
    retries: Math.floor(retries),
    baseDelayMs,
    maxDelayMs,
    random: functions?.random ?? Math.random,
    sleep: functions?.sleep ?? sleep,
  };
}
