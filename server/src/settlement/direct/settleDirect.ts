/**
 * Direct settlement (docs/decisions.md §22.1): the buyer paid the merchant's own address, so nothing moves; the
 * payment settles when its success transaction is final on chain. `settlement.settleDirect` is added in the
 * transaction that makes a live direct payment `succeeded` and reschedules itself (one job per payment, by its job
 * key) until the chain's finality answers. The `settled` stage, its event and the ledger rows (`received`, and
 * `fee` when there is one) commit in one transaction, once.
 *
 * A transaction gone before finality (a reorg deeper than the required confirmations) is never settled: the
 * payment already succeeded, so the job logs it at error level, counts it, and keeps looking for the transaction to
 * come back (a reorged-out transaction usually lands again from the mempool) for `goneAfterMs`; after that it
 * records a `reorged_out` discrepancy for the operator and stops.
 */
import type { Knex } from 'knex';
import type { ChainAdapter } from '../../chains/adapter.js';
import { forNamespaceOf } from '../../chains/adapters.js';
import { findMerchant } from '../../db/queries/accounts.js';
import { findClaimOfPayment } from '../../db/queries/claims.js';
import { insertDiscrepancy } from '../../db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../../db/queries/payments.js';
import type { SettledStage } from '../../db/queries/paymentStages.js';
import { randomBase62 } from '../../ids.js';
import { assertPayload, type JobQueue, type TaskList } from '../../jobs/types.js';
import type { Observer } from '../../observability/observer.js';
import { recordStage, type LifecycleDeps } from '../../payments/lifecycle.js';
import { iso } from '../../payments/snapshot.js';
import { insertLedgerEntries, type LedgerEntry } from '../ledger.js';

export const SETTLE_DIRECT_TASK = 'settlement.settleDirect';

export interface DirectSettlementDeps extends LifecycleDeps {
  adapters: ChainAdapter[];
  observer?: Pick<Observer, 'paymentTransition' | 'settlementReorg'>;
}

export interface DirectSettlementOptions {
  /** How often the job looks at the chain again while the transaction is not final. */
  recheckMs: number;
  /** How long a transaction may stay gone before the job gives up on it and records a discrepancy. */
  goneAfterMs: number;
}

/** Ethereum finalizes in about 13 minutes; a deep reorg's transactions land again within minutes if they can. */
export const DEFAULT_DIRECT_SETTLEMENT: DirectSettlementOptions = { recheckMs: 15_000, goneAfterMs: 60 * 60_000 };

interface Payload extends Record<string, unknown> {
  paymentId: string;
  /** Business-clock ms when the transaction was first seen gone; absent while it is on chain. */
  goneSince?: number;
}

const jobKeyOf = (paymentId: string) => `${SETTLE_DIRECT_TASK}:${paymentId}`;

/**
 * The direct mode's part of a payment's success (direct/index.ts `onSucceeded`, in the transaction of its
 * `payment.succeeded` event): a live payment gets its settlement job. Test payments settle by themselves
 * (payments/lifecycle.ts). Only a payment of this mode comes here (settlement/modes.ts), so the job never looks at
 * another mode's payment.
 */
export async function scheduleDirectSettlement(
  deps: { jobs: Pick<JobQueue, 'add'> },
  trx: Knex.Transaction,
  payment: Pick<PaymentRow, 'id' | 'live'>,
): Promise<void> {
  if (!payment.live) return;
  await deps.jobs.add(trx, SETTLE_DIRECT_TASK, { paymentId: payment.id }, { jobKey: jobKeyOf(payment.id) });
}

/** The asset of a `caip19/<asset>` unit, or null for another kind of unit. */
function assetOf(unit: string): string | null {
  return unit.startsWith('caip19/') ? unit.slice('caip19/'.length) : null;
}

/** The ledger rows of a direct payment at settlement: what the merchant's address received, and the fee it owes. */
async function directEntries(
  trx: Knex.Transaction,
  payment: PaymentRow,
  txId: string,
  now: number,
): Promise<LedgerEntry[]> {
  const processing = payment.stages.processing!;
  const chain = processing.chain_caip2;
  const asset = assetOf(processing.settlement_amount.unit);
  if (asset === null) return [];
  const merchant = await findMerchant(trx, payment.merchant_id);
  const common = {
    merchantId: payment.merchant_id,
    live: payment.live,
    mode: 'direct' as const,
    chain,
    asset,
    paymentId: payment.id,
    txId,
    createdAt: now,
  };
  const entries: LedgerEntry[] = [];
  const received = BigInt(processing.settlement_amount.value);
  if (received > 0n) {
    entries.push({
      ...common,
      entryKey: `received:${payment.id}`,
      kind: 'received',
      amount: received,
      // Where the buyer paid: the merchant's address on the chain (the one options were issued for, unless the
      // merchant changed it since).
      address: merchant?.settlement_addresses[chain] ?? null,
    });
  }
  const fee = processing.fee;
  // The fee is counted in the settlement asset; a fee left in another unit cannot be summed with it.
  if (fee && fee.total_amount.unit === processing.settlement_amount.unit && BigInt(fee.total_amount.value) > 0n) {
    entries.push({
      ...common,
      entryKey: `fee:${payment.id}`,
      kind: 'fee',
      amount: BigInt(fee.total_amount.value),
      address: null,
    });
  }
  return entries;
}

/** Settles the payment at `txId` with its ledger rows, in one transaction; a repeat changes nothing. */
async function settle(deps: DirectSettlementDeps, paymentId: string, txId: string): Promise<void> {
  await deps.db.knex.transaction(async (trx) => {
    let settledRow: PaymentRow | null = null;
    await recordStage(
      deps,
      paymentId,
      'settled',
      (p, now): SettledStage | null => {
        if (p.status !== 'succeeded' || p.stages.settled !== null || !p.stages.processing) return null;
        settledRow = p;
        return { settled_at: iso(now), settlement_amount: p.stages.processing.settlement_amount, tx_id: txId };
      },
      trx,
    );
    if (settledRow) await insertLedgerEntries(trx, await directEntries(trx, settledRow, txId, deps.now()));
  });
}

/**
 * One look at a live direct payment's success transaction: settle it when final, otherwise look again later (the
 * job re-adds itself under its key). Idempotent: a settled or unknown payment ends the job.
 */
export async function settleDirect(
  deps: DirectSettlementDeps,
  payload: Payload,
  options: DirectSettlementOptions = DEFAULT_DIRECT_SETTLEMENT,
): Promise<'settled' | 'pending' | 'gone' | 'abandoned' | 'skipped'> {
  const { paymentId } = payload;
  const payment = await findPayment(deps.db.knex, paymentId);
  if (!payment || !payment.live || payment.status !== 'succeeded' || payment.stages.settled !== null) return 'skipped';
  const processing = payment.stages.processing;
  const txId = payment.stages.success?.tx_id;
  if (!processing || !txId) return 'skipped';
  const chain = processing.chain_caip2;
  const adapter = forNamespaceOf(deps.adapters, chain);
  // A chain this server no longer serves: the job fails and is retried by the queue, loudly, until it does again.
  if (!adapter) throw new Error(`direct settlement of ${paymentId}: this server does not serve ${chain}`);

  // The claim holds what the chain's finality needs besides the id (Solana: the slot it landed in, §27.30).
  const claim = await findClaimOfPayment(deps.db.knex, paymentId);
  const finality = await adapter.finality(chain, txId, claim?.txId === txId ? claim.details : undefined);
  const now = deps.now();
  const log = { paymentId, chain, txId };
  if (finality === 'final') {
    await settle(deps, paymentId, txId);
    return 'settled';
  }
  let goneSince: number | undefined;
  if (finality === 'gone') {
    goneSince = payload.goneSince ?? now;
    if (payload.goneSince === undefined) {
      deps.logger.error(log, "a succeeded payment's transaction left the chain before finality; not settling it");
      deps.observer?.settlementReorg?.({ chain, outcome: 'gone' });
    }
    if (now - goneSince >= options.goneAfterMs) {
      await abandon(deps, payment, txId, goneSince);
      return 'abandoned';
    }
  } else if (payload.goneSince !== undefined) {
    deps.logger.warn(log, "a succeeded payment's transaction is back on chain; settlement waits for its finality");
    deps.observer?.settlementReorg?.({ chain, outcome: 'reappeared' });
  }
  const next: Payload = goneSince === undefined ? { paymentId } : { paymentId, goneSince };
  await deps.jobs.add(deps.db.knex, SETTLE_DIRECT_TASK, next, {
    jobKey: jobKeyOf(paymentId),
    runAt: now + options.recheckMs,
  });
  return finality;
}

/** The transaction stayed gone past the bound: the operator's to resolve with the merchant; never settled. */
async function abandon(deps: DirectSettlementDeps, payment: PaymentRow, txId: string, goneSince: number) {
  const processing = payment.stages.processing!;
  const chain = processing.chain_caip2;
  await insertDiscrepancy(deps.db.knex, {
    id: `dsc_${randomBase62(20)}`,
    paymentId: payment.id,
    kind: 'reorged_out',
    live: payment.live,
    chain,
    txId,
    assetUnit: processing.settlement_amount.unit,
    expectedValue: processing.settlement_amount.value,
    receivedValue: '0',
    note:
      `The success transaction left the chain before finality on ${iso(goneSince)} and did not come back; ` +
      'the payment stays succeeded and is not settled.',
    createdAt: deps.now(),
  });
  deps.logger.error(
    { paymentId: payment.id, chain, txId },
    "a succeeded payment's transaction stayed off the chain; recorded a reorged_out discrepancy, not settling it",
  );
  deps.observer?.settlementReorg?.({ chain, outcome: 'abandoned' });
}

export function directSettlementTasks(
  deps: DirectSettlementDeps,
  options: DirectSettlementOptions = DEFAULT_DIRECT_SETTLEMENT,
): TaskList {
  return {
    [SETTLE_DIRECT_TASK]: async (payload) => {
      assertPayload<Payload>(payload, ['paymentId'], SETTLE_DIRECT_TASK);
      await settleDirect(deps, payload, options);
    },
  };
}
