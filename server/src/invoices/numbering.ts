/**
 * An invoice's number: the merchant's prefix and the sequence's next number (docs/decisions.md §30.9). Numbers are
 * taken in the transaction that inserts the invoice (db/queries/invoices.ts, takeNextNumber), so a failed create
 * gives its number back and two concurrent creates never get the same one.
 */
import { findSequence, updateSequence } from '../db/queries/invoiceRows.js';
import type { Database } from '../db/connect.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';

export type InvoiceSequence = components['schemas']['InvoiceSequence'];
export type UpdateInvoiceSequenceRequest = components['schemas']['UpdateInvoiceSequenceRequest'];

/** Whose invoices a request sees: one merchant, in the mode of the key (as payments). */
export interface InvoiceScope {
  merchantId: string;
  live: boolean;
}

const PREFIX = /^[A-Za-z0-9_./-]{0,20}$/;
const MAX_NUMBER = 999_999_999_999;

/** At least four digits, so the first invoices sort and read as an accountant expects (`INV-0001`). */
export function formatNumber(prefix: string, number: number): string {
  return `${prefix}${String(number).padStart(4, '0')}`;
}

export async function readSequence(deps: { db: Database }, scope: InvoiceScope): Promise<InvoiceSequence> {
  const row = await findSequence(deps.db.knex, scope.merchantId, scope.live);
  return { prefix: row.prefix, nextNumber: row.next_number };
}

/**
 * A new prefix and/or next number. The next number only moves forward: a number once given is never given again
 * (with another prefix a repeat could not collide, but a merchant's books would still show two invoices 0042).
 */
export async function changeSequence(
  deps: { db: Database },
  scope: InvoiceScope,
  body: UpdateInvoiceSequenceRequest,
): Promise<InvoiceSequence> {
  if (body.prefix !== undefined && !PREFIX.test(body.prefix)) {
    throw new ApiError('params_validation', 'prefix: up to 20 of A-Z a-z 0-9 _ . / -.', { param: 'prefix' });
  }
  const next = body.nextNumber;
  if (next !== undefined && (!Number.isSafeInteger(next) || next < 1 || next > MAX_NUMBER)) {
    throw new ApiError('params_validation', `nextNumber: 1 to ${MAX_NUMBER}.`, { param: 'nextNumber' });
  }
  const row = await deps.db.knex.transaction((trx) =>
    updateSequence(trx, scope.merchantId, scope.live, (current) => {
      if (next !== undefined && next < current.next_number) {
        throw new ApiError(
          'params_validation',
          `nextNumber ${next} is below the next number ${current.next_number}: numbers already given are never given again.`,
          { param: 'nextNumber' },
        );
      }
      return { prefix: body.prefix ?? current.prefix, next_number: next ?? current.next_number };
    }),
  );
  return { prefix: row.prefix, nextNumber: row.next_number };
}
