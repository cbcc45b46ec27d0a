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
/**
 * Leases (docs/decisions.md §13, "Leases"). A claimed attempt is its worker's until its lease passes; the worker
 * renews it every `LEASE_RENEW_MS` while the attempt is in flight, conditionally on still owning it, so a live worker
 * keeps it however long the attempt takes, and ends the send itself once the lease is no longer surely its own.
 * `LEASE_MS` is the timeout plus room: an attempt that starts as it is claimed ends by its own timeout before the
 * lease passes, even if no renewal gets through. Each process looks for passed leases every `LEASE_SWEEP_MS`.
 *
 * From a worker's death to another worker's attempt, worst case: the lease left at death (at most `LEASE_MS`, when it
 * died just after a renewal) + one lease sweep (`LEASE_SWEEP_MS`) + the job's pickup (a NOTIFY, milliseconds)
 * = 20 s + 2 s ≈ 22 s, plus the receiver's answer: within 30 s for a receiver that answers within about 7 s.
 */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5 * SECOND;
export const LEASE_RENEW_MS = LEASE_MS / 4;
export const LEASE_SWEEP_MS = LEASE_MS / 10;
export const DISABLE_AFTER_MS = 5 * DAY;
export const ROTATION_OVERLAP_MS = DAY;
export const REPLAY_WINDOW_MS = 14 * DAY;

/** When attempt `made + 1` is due after `made` attempts ended at `at`; null when the schedule is exhausted. */
export function nextAttemptAt(made: number, at: number): number | null {
  return made >= MAX_ATTEMPTS ? null : at + RETRY_DELAYS_MS[made]!;
}
