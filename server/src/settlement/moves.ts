/**
 * The executor of the money the service moves itself (docs/decisions.md §22.4): sweeps, payouts and on-chain refunds
 * are rows (db/queries/moveRows.ts) that one job per row (`settlement.move`, keyed by the row id) carries through
 *
 *   planned ──prepare──▶ planned + details ──send──▶ sent + tx_id ──progress…──▶ final (+ the kind's completion)
 *
 * Each step is written before the next begins, and each is safe to repeat after a crash at any point: `details`
 * (what makes a resend the same move: EIP-3009 nonces and signatures, a signed Solana transaction) are stored before
 * anything is sent, a send checks on chain what already landed, and the completion (ledger rows, `payment.settled`)
 * is written in the transaction that makes the row `final`, once.
 *
 * A run holds the move's lease (db/queries/moveLeases.ts) and renews it while it works: a second run of the same move
 * (a job re-added by a restart beside a live worker) leaves it alone, and a worker killed mid-move is noticed when its
 * lease passes (`recoverMoveLeases`), not 4 hours later when graphile-worker would unlock its job. A run that stalled
 * past its lease and races the next one is still safe: `details` are written once, and every later write is
 * conditional on the row's state.
 */
import type { Knex } from 'knex';
import type { Move, MoveLeg, MoveSender } from '../chains/adapter.js';
import { forNamespaceOf } from '../chains/adapters.js';
import {
  claimMoveLease,
  dropPassedMoveLease,
  passedMoveLeases,
  releaseMoveLease,
  renewMoveLease,
} from '../db/queries/moveLeases.js';
import { findMoveRow, openMoveRows, updateMoveRow, type MoveKind, type MoveRow } from '../db/queries/moveRows.js';
import { payoutItemsOf, releasePayoutItems } from '../db/queries/payoutRows.js';
import { findOnchainRefund } from '../db/queries/refundRequests.js';
import { findPayment } from '../db/queries/payments.js';
import type { SettledStage } from '../db/queries/paymentStages.js';
import { paymentFundsSwept, refundsAwaitingSweep, releaseSweepTransfers, sweepLegs } from '../db/queries/sweepRows.js';
import { randomBase62 } from '../ids.js';
import { recordStage } from '../payments/lifecycle.js';
import { iso } from '../payments/snapshot.js';
import { insertLedgerEntries, type LedgerEntry } from './ledger.js';
import { enqueueMove, type MoveDeps } from './moveJobs.js';
import { releasePayoutReservation } from './payouts.js';
import { releaseRefundNetworkFee } from './refundPolicy.js';
import { refundReleased, refundReserved, syncRefundedStage } from './refunds.js';

export { MOVE_TASK, enqueueMove, type MoveDeps } from './moveJobs.js';

/**
 * How long a run of a move is its worker's unless renewed (every quarter of it); a dead worker's move is taken on
 * within this plus one lease sweep (a tenth of it).
 */
export const MOVE_LEASE_MS = 20_000;

/**
 * Waits after each failed send of a move (prepare or send threw: an RPC error, or the chain refusing it, such as a
 * gas estimate that reverts because the account lacks the funds the ledger expects), on the injected clock. After the
 * last one the move fails and gives back what it covered: five attempts over about 13 minutes.
 */
export const MOVE_SEND_RETRY_MS = [5_000, 30_000, 120_000, 600_000] as const;

/**
 * How often a refund waiting for its payment's deposit to be swept looks again: a backstop, since the sweep that
 * brings the money wakes it the moment it is final (`complete`).
 */
export const REFUND_FUNDS_WAIT_MS = 60_000;

export function moverOf(deps: MoveDeps, chain: string): MoveSender {
  const mover = forNamespaceOf(deps.adapters, chain)?.settlement?.mover;
  if (!mover) throw new Error(`${chain}: this server cannot move funds there (no deposit seed, or no mover)`);
  return mover;
}

function positive(legs: MoveLeg[]): MoveLeg[] {
  return legs.filter((l) => l.amount > 0n);
}

/** The legs of a row, in a fixed order: a leg's index is part of its EIP-3009 nonce. */
async function moveOf(db: Knex | Knex.Transaction, row: MoveRow): Promise<Move> {
  const base = { id: row.id, chain: row.chain, asset: row.asset };
  const raw = row.raw;
  if (row.kind === 'sweep') {
    const legs = (await sweepLegs(db, row.id)).map((l): MoveLeg => ({
      from: { role: 'deposit', index: l.derivationIndex },
      to: raw.to_address as string,
      amount: l.amount,
    }));
    return { ...base, legs };
  }
  if (row.kind === 'payout') {
    return {
      ...base,
      legs: positive([
        { from: { role: 'collection' }, to: raw.destination as string, amount: BigInt(raw.net as string) },
        { from: { role: 'collection' }, to: raw.treasury as string, amount: BigInt(raw.fee as string) },
      ]),
    };
  }
  if (raw.destination === null) throw new Error(`refund ${row.id} has no destination yet`);
  return {
    ...base,
    legs: [{ from: { role: 'collection' }, to: raw.destination as string, amount: BigInt(raw.amount as string) }],
  };
}

/** Carries one row as far as it goes now; reschedules itself while the chain has not decided. Idempotent. */
export async function runMove(deps: MoveDeps, kind: MoveKind, id: string, failures = 0): Promise<void> {
  const db = deps.db.knex;
  const owner = randomBase62(16);
  const leaseMs = deps.moveLeaseMs ?? MOVE_LEASE_MS;
  if (!(await claimMoveLease(db, { kind, id, owner, now: deps.now(), leaseMs }))) {
    // Another run holds it: that run carries it on, or its lease passes and the lease sweep hands the move on.
    deps.logger.debug({ kind, id }, 'settlement move is being run elsewhere');
    return;
  }
  const renewal = setInterval(() => {
    renewMoveLease(db, id, owner, deps.now() + leaseMs).catch((err: unknown) =>
      deps.logger.warn({ err, kind, id }, 'settlement move lease renewal failed'),
    );
  }, leaseMs / 4);
  renewal.unref();
  try {
    await stepMove(deps, kind, id, owner, failures);
  } finally {
    clearInterval(renewal);
    await releaseMoveLease(db, id, owner);
  }
}

async function stepMove(deps: MoveDeps, kind: MoveKind, id: string, owner: string, failures: number): Promise<void> {
  const db = deps.db.knex;
  let row = await findMoveRow(db, kind, id);
  if (!row || row.state === 'final' || row.state === 'failed') return;
  if (kind === 'refund' && row.raw.destination === null) return;
  const move = await moveOf(db, row);
  const mover = moverOf(deps, row.chain);

  if (kind === 'refund' && row.state === 'planned' && Object.keys(row.details).length === 0) {
    // Sent only once the money it returns is at the collection account (docs/decisions.md §22.12): before, it would
    // be paid with other merchants' money, lost if the deposit never becomes final.
    if (!(await paymentFundsSwept(db, row.raw.payment_id as string))) {
      await db.transaction(async (trx) => {
        await enqueueMove(
          trx,
          deps.jobs,
          kind,
          id,
          deps.now() + (deps.refundFundsWaitMs ?? deps.moveRecheckMs ?? REFUND_FUNDS_WAIT_MS),
          failures,
        );
        await releaseMoveLease(trx, id, owner);
      });
      return;
    }
  }
  if (row.state === 'planned' && failures >= GIVEN_UP) {
    await failMove(deps, row, owner, ['planned'], 'unsendable', { failures });
    return;
  }
  if (row.state === 'planned') {
    let txId: string;
    try {
      if (Object.keys(row.details).length === 0) {
        const details = await mover.prepare(move);
        // Stored before anything is sent, and once: a crash from here on, or a run racing this one, sends exactly this.
        if (!(await updateMoveRow(db, kind, id, ['planned'], { details, firstDetails: true, now: deps.now() }))) {
          const stored = await findMoveRow(db, kind, id);
          if (!stored || stored.state !== 'planned') return;
          row = stored;
        } else row = { ...row, details };
      }
      ({ txId } = await mover.send(move, row.details));
    } catch (err) {
      await sendFailed(deps, row, owner, failures + 1, err);
      return;
    }
    await updateMoveRow(db, kind, id, ['planned'], { state: 'sent', txId, now: deps.now() });
    row = { ...row, state: 'sent', txId };
  }

  const progress = await mover.progress(move, row.details, row.txId);
  const now = deps.now();
  switch (progress.state) {
    case 'pending':
      await db.transaction(async (trx) => {
        if (progress.txId && progress.txId !== row.txId) {
          await updateMoveRow(trx, kind, id, ['sent'], { txId: progress.txId, now });
        }
        await enqueueMove(trx, deps.jobs, kind, id, now + (deps.moveRecheckMs ?? progress.recheckInMs));
        // Given up with the job's handover, so the next job can take it whenever it runs.
        await releaseMoveLease(trx, id, owner);
      });
      return;
    case 'expired': {
      // Nothing of it landed and nothing of it can: prepared again (a fresh blockhash), then sent.
      const details = await mover.prepare(move);
      await db.transaction(async (trx) => {
        await updateMoveRow(trx, kind, id, ['sent', 'planned'], { state: 'planned', txId: null, details, now });
        await enqueueMove(trx, deps.jobs, kind, id, now);
        await releaseMoveLease(trx, id, owner);
      });
      return;
    }
    case 'unknown':
      // It may have landed: signing it again could move the money twice, so the move waits, loudly (§22.16).
      await db.transaction(async (trx) => {
        await enqueueMove(trx, deps.jobs, kind, id, now + progress.recheckInMs);
        await releaseMoveLease(trx, id, owner);
      });
      deps.logger.error(
        { kind, id, chain: row.chain, txId: row.txId, reason: progress.reason },
        "settlement move's landing cannot be told from this node; not signing it again until it can",
      );
      deps.observer?.settlementMoveUnknown?.({ chain: row.chain, kind });
      return;
    case 'failed':
      await failMove(deps, row, owner, ['sent'], 'reverted', { reason: progress.reason });
      return;
    case 'final':
      await db.transaction(async (trx) => {
        const locked = await findMoveRow(trx, kind, id, { forUpdate: true });
        if (!locked || locked.state !== 'sent') return;
        await updateMoveRow(trx, kind, id, ['sent'], { state: 'final', txId: progress.txId, now });
        await complete(deps, trx, locked, move, progress.txId, now);
      });
      return;
  }
}

/** A send that threw: tried again after MOVE_SEND_RETRY_MS, then failed for good. */
async function sendFailed(deps: MoveDeps, row: MoveRow, owner: string, failures: number, err: unknown) {
  const { kind, id } = row;
  const delay = MOVE_SEND_RETRY_MS[failures - 1];
  if (delay === undefined) {
    await failMove(deps, row, owner, ['planned'], 'unsendable', { err, failures });
    return;
  }
  deps.logger.warn({ kind, id, chain: row.chain, failures, err }, 'settlement move not sent; trying again later');
  await deps.db.knex.transaction(async (trx) => {
    await enqueueMove(trx, deps.jobs, kind, id, deps.now() + delay, failures);
    await releaseMoveLease(trx, id, owner);
  });
}

/**
 * The `failures` a given-up move's job carries: past the last send retry, so its next run only asks whether the move
 * can still execute (failMove), and never sends again.
 */
const GIVEN_UP = MOVE_SEND_RETRY_MS.length + 1;

/**
 * Ends a move as `failed` and gives back what it covered, once (the state change is conditional): a sweep's
 * transfers and a payout's payments are owed again and planned again by the next round (its reservation voided:
 * `payout_released`), a refund's reservation goes back to the balance it drew on (`refund_released` or
 * `excess_released`). Only once the move can never execute (§22.11): while its stored details (signed
 * authorizations, a signed transaction) could still land, the move keeps its state and its job looks again; if they
 * did land after all, the move is carried to `final` like any sent move instead.
 */
async function failMove(
  deps: MoveDeps,
  row: MoveRow,
  owner: string,
  from: MoveRow['state'][],
  reason: 'reverted' | 'unsendable',
  detail: Record<string, unknown>,
): Promise<void> {
  const { kind, id } = row;
  const db = deps.db.knex;
  const current = await findMoveRow(db, kind, id);
  if (!current || !from.includes(current.state)) return;
  // Without details nothing was signed, so nothing of it can execute.
  if (Object.keys(current.details).length > 0) {
    const end = await moverOf(deps, row.chain).ended(await moveOf(db, current), current.details, current.txId);
    if (end.state !== 'dead') {
      const now = deps.now();
      await db.transaction(async (trx) => {
        if (end.state === 'executed') {
          // It moved after all: watched to finality and completed as any sent move, never given back.
          await updateMoveRow(trx, kind, id, from, { state: 'sent', txId: end.txId, now });
          await enqueueMove(trx, deps.jobs, kind, id, now);
        } else {
          const at = now + (deps.moveRecheckMs ?? end.recheckInMs);
          await enqueueMove(trx, deps.jobs, kind, id, at, current.state === 'planned' ? GIVEN_UP : 0);
        }
        await releaseMoveLease(trx, id, owner);
      });
      deps.logger.warn(
        { kind, id, chain: row.chain, reason, outcome: end.state, ...detail },
        end.state === 'executed'
          ? 'settlement move given up on executed after all; completing it'
          : 'settlement move given up on can still execute; giving back nothing until it cannot',
      );
      return;
    }
  }
  const failed = await db.transaction(async (trx) => {
    const now = deps.now();
    if (!(await updateMoveRow(trx, kind, id, from, { state: 'failed', now }))) return false;
    if (kind === 'sweep') await releaseSweepTransfers(trx, id);
    if (kind === 'payout') {
      // Voided: the payments are owed again, and their money is back in the merchant's balance.
      await releasePayoutItems(trx, id);
      await releasePayoutReservation(trx, id, now);
    }
    if (kind === 'refund') await releaseRefund(deps, trx, current, now);
    return true;
  });
  if (!failed) return;
  deps.logger.error(
    { kind, id, chain: row.chain, reason, ...detail },
    'settlement move failed; what it covered is owed again',
  );
  deps.observer?.settlementMoveFailed?.({ chain: row.chain, kind, reason });
}

/** A failed refund's reserved `refunded` entry given back, and the payment's record showing it failed. */
async function releaseRefund(deps: MoveDeps, trx: Knex.Transaction, row: MoveRow, now: number): Promise<void> {
  const payment = await findPayment(trx, row.raw.payment_id as string);
  if (!payment) throw new Error(`refund ${row.id}: payment ${String(row.raw.payment_id)} is missing`);
  const refund = await findOnchainRefund(trx, row.id);
  if (!refund) throw new Error(`refund ${row.id} vanished while failing it`);
  await insertLedgerEntries(trx, [refundReleased(refund, payment.live, now)]);
  await releaseRefundNetworkFee(trx, refund, payment.live, now);
  await syncRefundedStage(deps, payment.id, trx);
}

/** What a final move means for the books and the payments it covers; in the transaction that makes it final. */
async function complete(
  deps: MoveDeps,
  trx: Knex.Transaction,
  row: MoveRow,
  move: Move,
  txId: string,
  now: number,
): Promise<void> {
  const common = { mode: 'collected' as const, chain: row.chain, asset: row.asset, txId, createdAt: now };
  if (row.kind === 'sweep') {
    const legs = await sweepLegs(trx, row.id);
    const entries = legs.map((l): LedgerEntry => ({
      ...common,
      entryKey: `swept:${row.id}:${l.address}`,
      kind: 'swept',
      merchantId: l.merchantId,
      live: l.live,
      amount: l.amount,
      address: l.address,
      paymentId: l.paymentId,
      sweepId: row.id,
    }));
    await insertLedgerEntries(trx, entries);
    // The refunds this money was waiting for go now, in the transaction that makes it swept, not a minute later.
    const waiting = await refundsAwaitingSweep(
      trx,
      legs.map((l) => l.paymentId),
    );
    for (const id of waiting) await enqueueMove(trx, deps.jobs, 'refund', id, now);
    return;
  }
  const merchantId = row.raw.merchant_id as string;
  if (row.kind === 'payout') {
    const live = row.raw.live === true || row.raw.live === 1;
    const net = BigInt(row.raw.net as string);
    const fee = BigInt(row.raw.fee as string);
    const entries: LedgerEntry[] = [];
    const base = { ...common, merchantId, live, payoutId: row.id };
    if (net > 0n)
      entries.push({
        ...base,
        entryKey: `paid_out:${row.id}`,
        kind: 'paid_out',
        amount: net,
        address: row.raw.destination as string,
      });
    if (fee > 0n)
      entries.push({
        ...base,
        entryKey: `fee_paid:${row.id}`,
        kind: 'fee_paid',
        amount: fee,
        address: row.raw.treasury as string,
      });
    await insertLedgerEntries(trx, entries);
    // Posted: `paid_out` takes the place of the reservation planning wrote.
    await releasePayoutReservation(trx, row.id, now);
    for (const item of await payoutItemsOf(trx, [row.id])) {
      await recordStage(
        deps,
        item.paymentId,
        'settled',
        (p): SettledStage | null => {
          if (p.status !== 'succeeded' || p.stages.settled !== null) return null;
          // The payment's payable (settlement amount − fee), and the payout transaction that paid it.
          const settled = {
            settled_at: iso(now),
            settlement_amount: { unit: `caip19/${row.asset}`, value: (item.gross - item.fee).toString() },
            tx_id: txId,
          };
          return settled;
        },
        trx,
      );
    }
    return;
  }
  const payment = await findPayment(trx, row.raw.payment_id as string);
  if (!payment) throw new Error(`refund ${row.id}: payment ${String(row.raw.payment_id)} is missing`);
  const refund = await findOnchainRefund(trx, row.id);
  if (!refund) throw new Error(`refund ${row.id} vanished while completing it`);
  await insertLedgerEntries(trx, [refundReserved(refund, payment.live, now, { txId, address: move.legs[0]!.to })]);
  // The request wrote the refund's record (and reserved its ledger entry above, the same key); the record now shows
  // the refund's transaction.
  await syncRefundedStage(deps, payment.id, trx);
}

/**
 * Hands on the moves whose lease passed (their worker died, or stalled past it): each gets a new job, which takes the
 * lease. Run every tenth of a lease by every process that runs jobs (settlementTasks.ts).
 */
export async function recoverMoveLeases(deps: MoveDeps): Promise<number> {
  let handed = 0;
  for (const lease of await passedMoveLeases(deps.db.knex, deps.now())) {
    await deps.db.knex.transaction(async (trx) => {
      if (!(await dropPassedMoveLease(trx, lease))) return;
      const row = await findMoveRow(trx, lease.kind, lease.id);
      if (!row || (row.state !== 'planned' && row.state !== 'sent')) return;
      await enqueueMove(trx, deps.jobs, lease.kind, lease.id);
      handed++;
    });
  }
  if (handed > 0) deps.logger.warn({ moves: handed }, 'settlement move leases passed; moves handed on');
  return handed;
}

/** Every row still moving gets its job back (a restart, or rows written before their job existed). */
export async function resumeMoves(deps: MoveDeps): Promise<number> {
  let resumed = 0;
  for (const kind of ['sweep', 'payout', 'refund'] as const) {
    for (const id of await openMoveRows(deps.db.knex, kind)) {
      await enqueueMove(deps.db.knex, deps.jobs, kind, id);
      resumed++;
    }
  }
  return resumed;
}
