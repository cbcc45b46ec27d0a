/**
 * What reconciliation finds on one account (reconciliation.ts): a leaf of its own, so that what is recorded of it
 * (reconciliationFindings.ts) reads it without importing the reconciler that calls it.
 */
export type AccountRole = 'deposit' | 'collection' | 'treasury';

export interface Difference {
  chain: string;
  asset: string;
  role: AccountRole;
  address: string;
  /** What the ledger says the account holds (for the treasury: at least). */
  expected: bigint;
  actual: bigint;
  /** actual − expected. */
  difference: bigint;
  state: 'pending' | 'standing';
  /** When this difference was first seen (ms); a difference that disappears and comes back starts again. */
  since: number;
}
