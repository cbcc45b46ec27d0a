import type { Knex } from 'knex';
import type { Database } from '../db/connect.js';
import { ApiError } from '../errors.js';

/** What the accounts module needs; a Runtime satisfies it. */
export interface AccountsDeps {
  db: Database;
  now: () => number;
}

/** Runs `work` in the caller's transaction when there is one, so several writes can commit together. */
export function inTransaction<T>(
  deps: AccountsDeps,
  trx: Knex.Transaction | undefined,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  return trx ? work(trx) : deps.db.knex.transaction(work);
}

/** Names and labels are shown in lists and terminals, where a control character could rewrite the display. */
export function cleanText(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  // eslint-disable-next-line no-control-regex
  if (trimmed.length === 0 || trimmed.length > max || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new ApiError('params_validation', `${field} must be 1–${max} characters without control characters`, {
      param: field,
    });
  }
  return trimmed;
}
