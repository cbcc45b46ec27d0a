/** The spec's delivery rules as numbers (Events → Delivery rules, Limits). */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Delay before attempt n (index n-1), counted from the previous attempt: immediate, 5 s, 5 min, … (≈ 28 h). */
export const RETRY_DELAYS_MS = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;
export const ATTEMPT_TIMEOUT_MS = 15 * SECOND;
/** A claimed attempt is someone else's to retry once its lease passes: the timeout plus room to record it. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 45 * SECOND;
export const DISABLE_AFTER_MS = 5 * DAY;
export const ROTATION_OVERLAP_MS = DAY;
export const REPLAY_WINDOW_MS = 14 * DAY;

/** When attempt `made + 1` is due after `made` attempts ended at `at`; null when the schedule is exhausted. */
export function nextAttemptAt(made: number, at: number): number | null {
  return made >= MAX_ATTEMPTS ? null : at + RETRY_DELAYS_MS[made]!;
}
