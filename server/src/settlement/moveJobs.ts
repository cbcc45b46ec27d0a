/**
 * The job that carries one sweep, payout or on-chain refund row (moves.ts runs it). Its own module so that the
 * modules writing rows (sweeps, payouts, refunds) add the job without importing the executor, which imports them.
 */
import type { Knex } from 'knex';
import type { MoveKind } from '../db/queries/moveRows.js';
import type { ChainAdapter } from '../chains/adapter.js';
import type { Chains } from '../chains/index.js';
import type { JobQueue } from '../jobs/types.js';
import type { Observer } from '../observability/observer.js';
import type { LifecycleDeps } from '../payments/lifecycle.js';

export const MOVE_TASK = 'settlement.move';

/** What the executor (moves.ts) and the modules that plan its rows need; here so planners need not import it. */
export interface MoveDeps extends LifecycleDeps {
  adapters: ChainAdapter[];
  chains: Chains;
  /** How long to wait before looking at a sent move again; the mover's own suggestion when absent. */
  moveRecheckMs?: number;
  /** How often a refund waiting for its payment's sweep looks again; moves.ts REFUND_FUNDS_WAIT_MS when absent. */
  refundFundsWaitMs?: number;
  /** MOVE_LEASE_MS when absent. */
  moveLeaseMs?: number;
  observer?: Pick<Observer, 'paymentTransition' | 'settlementMoveFailed' | 'settlementMoveUnknown'>;
}

/** Adds the row's job; call it in the transaction that writes the row, so the row never waits without one. */
export async function enqueueMove(
  trx: Knex | Knex.Transaction,
  jobs: JobQueue,
  kind: MoveKind,
  id: string,
  runAt?: number,
  /** Failed sends so far (moves.ts MOVE_SEND_RETRY_MS); the job carries the count. */
  failures = 0,
): Promise<void> {
  await jobs.add(trx, MOVE_TASK, failures > 0 ? { kind, id, failures } : { kind, id }, {
    jobKey: `${MOVE_TASK}:${id}`,
    ...(runAt !== undefined && { runAt }),
  });
}
