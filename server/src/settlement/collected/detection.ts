/**
 * Detection (docs/decisions.md §22.3): transfers to deposit addresses, found by each namespace's `DepositScan` from a
 * stored cursor, recorded in `deposit_transfers` with the cursor's move in one transaction, then credited to their
 * payments. A payment is paid by the transfers of one deposit asset mined by its `expiresAt` once, at the chain's
 * required confirmations, they sum to the amount asked; money it cannot take (an excess, a transfer after it ended)
 * is recorded as a discrepancy for refund (§17); money from a screened sender pays nothing and is held (§25.8). Every
 * step is idempotent: a scan repeated or run by two processes at once records each transfer, ledger row and finding
 * once.
 */
import type { Knex } from 'knex';
import type { ChainAdapter, DepositScan, OnChainState } from '../../chains/adapter.js';
import { allChains, type Chains } from '../../chains/index.js';
import { currencyOfUnit } from '../../currencies.js';
import { findMerchant } from '../../db/queries/accounts.js';
import { findClaimOfPayment, type ClaimRow } from '../../db/queries/claims.js';
import {
  insertDiscrepancy,
  screenedTransactionsOf,
  type DiscrepancyKind,
  type DiscrepancyRow,
} from '../../db/queries/discrepancies.js';
import { findPayment, type PaymentRow } from '../../db/queries/payments.js';
import { advanceScanCursor, readScanCursor } from '../../db/queries/scanCursors.js';
import {
  byChainOrder,
  hasDepositWork,
  listTransfersOfPayment,
  listWatchedTransfers,
  recordSeenTransfers,
  settleSeenTransfer,
  watchedDepositAddresses,
  type SeenTransferRow,
} from '../../db/queries/seenTransfers.js';
import { ApiError } from '../../errors.js';
import { newId, randomBase62 } from '../../ids.js';
import { assertPayload, IDLE, type TaskList } from '../../jobs/types.js';
import { feeOnAsset, type FeeBreakdown } from '../../payments/fees.js';
import { expireIfOverdue, transitionPayment, type LifecycleDeps } from '../../payments/lifecycle.js';
import type { Observer } from '../../observability/observer.js';
import { iso } from '../../payments/snapshot.js';
import type { Pricing } from '../../quotes/index.js';
import { paysOutOn } from './deposits.js';
import { excessEntry } from '../excess.js';
import { insertLedgerEntries, listLedgerEntries, type LedgerEntry } from '../ledger.js';
import { settlementModeOf } from '../modes.js';
import type { PartialArrivals } from '../../webhooks/partialPayment.js';

export const SCAN_DEPOSITS_TASK = 'settlement.scanDeposits';

/** How long after a payment ended its deposit address is still watched for late and repeated transfers. */
export const WATCH_AFTER_END_MS = 7 * 24 * 3600_000;

/** Watched transfers looked at per scan (their status is one chain read each); the rest wait for the next scan. */
const REVIEW_LIMIT = 1_000;

/** What detection needs; the runtime's `Checkout` has all of it. */
export interface DetectionDeps extends LifecycleDeps {
  observer?: Pick<Observer, 'paymentTransition' | 'settlementReorg' | 'screenedDeposit'>;
  chains: Chains;
  adapters: ChainAdapter[];
  pricing: Pricing;
  /** The screening list (PAYGATE_SCREENING_FILE): a sender on it pays nothing (checkout/screening.ts). */
  screening: { matches(caip10: string): boolean };
  /** Tells the merchant's webhook of an arrival that leaves a payment short (§26.26); set by the runtime. */
  partialArrivals?: PartialArrivals;
}

export interface ScanOptions {
  /** The scanner to use instead of the chain adapter's (tests: a small block range). */
  scanner?: DepositScan;
}

export interface ScanReport {
  /** Transfers recorded for the first time. */
  recorded: number;
  /** Whether this scan moved the cursor (false: another scan of the chain committed first). */
  advanced: boolean;
  /** Payments this scan moved to `succeeded`. */
  succeeded: string[];
  /** Transfers found gone from the chain before they were final. */
  reorged: string[];
}

/** The chains whose namespace can scan deposits. */
export function scannedChains(deps: Pick<DetectionDeps, 'chains' | 'adapters'>): string[] {
  return allChains(deps.chains)
    .map((c) => c.config.caip2)
    .filter((caip2) => scannerOf(deps, caip2) !== null);
}

function scannerOf(deps: Pick<DetectionDeps, 'adapters'>, chain: string): DepositScan | null {
  const adapter = deps.adapters.find((a) => a.isChainId(chain));
  return adapter?.settlement?.scanner ?? null;
}

function ledgerKeyOf(t: Pick<SeenTransferRow, 'chain' | 'txId' | 'position'>): string {
  return `received:${t.chain}:${t.txId}:${t.position}`;
}

/** Scans one chain: new transfers and the cursor, then each watched transfer's state, then the payments they pay. */
export async function scanDeposits(deps: DetectionDeps, chain: string, options: ScanOptions = {}): Promise<ScanReport> {
  const scanner = options.scanner ?? scannerOf(deps, chain);
  const report: ScanReport = { recorded: 0, advanced: false, succeeded: [], reorged: [] };
  if (!scanner) return report;
  const knex = deps.db.knex;
  const watchedSince = () => deps.now() - WATCH_AFTER_END_MS;
  const before = await watchedDepositAddresses(knex, chain, watchedSince());
  const cursor = await readScanCursor(knex, chain);
  const found = await scanner.scan(
    chain,
    before.map((w) => w.address),
    cursor,
  );
  // An address given out while the scan ran may already have been paid in the blocks it read: scanned again alone.
  const known = new Set(before.map((w) => w.address));
  const after = await watchedDepositAddresses(knex, chain, watchedSince());
  const added = after.filter((w) => !known.has(w.address));
  if (added.length > 0 && cursor !== null) {
    const again = await scanner.scan(
      chain,
      added.map((w) => w.address),
      cursor,
    );
    found.transfers.push(...again.transfers);
  }
  const paymentOf = new Map(after.map((w) => [w.address, w.paymentId]));
  const now = deps.now();
  await knex.transaction(async (trx) => {
    report.recorded = await recordSeenTransfers(
      trx,
      found.transfers.flatMap((t) => {
        const paymentId = paymentOf.get(t.address);
        if (!paymentId) return [];
        return [{ ...t, id: newId.depositTransfer(), paymentId, state: 'seen' as const, detectedAt: now }];
      }),
    );
    report.advanced = await advanceScanCursor(trx, chain, cursor, found.cursor, now);
  });

  // Where each watched transfer stands; a gone one is marked at once, before anything credits it.
  const states = new Map<string, OnChainState>();
  const payments = new Set<string>();
  for (const t of await listWatchedTransfers(knex, chain, REVIEW_LIMIT)) {
    const state = await scanner.status(t);
    payments.add(t.paymentId);
    if (state === 'gone') {
      await markReorged(deps, t);
      report.reorged.push(t.id);
      // Unknown: no evidence either way (§27.17); what is counted stays counted, and the next scan asks again.
    } else if (state !== 'unknown') states.set(t.id, state);
  }
  for (const paymentId of payments) {
    if (await creditPayment(deps, chain, paymentId, states)) report.succeeded.push(paymentId);
  }
  return report;
}

/**
 * A transfer gone before it was final. Not yet counted: it simply never paid. Already counted (its `received` row is
 * written, so it may have made the payment succeed): a reorg deeper than the chain's required confirmations, which
 * nothing reverses silently: the payment keeps its status, the ledger keeps its row (reconciliation then shows the
 * missing funds), and the operator is told by an error log and an `underpayment` discrepancy naming the transfer.
 */
async function markReorged(deps: DetectionDeps, t: SeenTransferRow): Promise<void> {
  await deps.db.knex.transaction(async (trx) => {
    if (!(await settleSeenTransfer(trx, t.id, 'reorged'))) return;
    const counted = (await listLedgerEntries(trx, { paymentId: t.paymentId, kinds: ['received'] })).some(
      (e) => e.entryKey === ledgerKeyOf(t),
    );
    if (!counted) {
      deps.logger.info({ paymentId: t.paymentId, chain: t.chain, txId: t.txId }, 'deposit transfer reorged out');
      deps.observer?.settlementReorg?.({ chain: t.chain, outcome: 'depositGone' });
      return;
    }
    const payment = await findPayment(trx, t.paymentId);
    await insertDiscrepancy(trx, {
      id: `dsc_${randomBase62(20)}`,
      paymentId: t.paymentId,
      kind: 'underpayment',
      live: payment?.live ?? false,
      chain: t.chain,
      txId: t.txId,
      assetUnit: `caip19/${t.asset}`,
      expectedValue: t.amount.toString(),
      receivedValue: '0',
      note:
        `Transfer ${t.txId}:${t.position} was counted at the required confirmations, then reorged out of the chain. ` +
        `The payment stays ${payment?.status ?? 'as it is'}; its funds are missing from the deposit address.`,
      createdAt: deps.now(),
    });
    deps.logger.error(
      { paymentId: t.paymentId, chain: t.chain, txId: t.txId, status: payment?.status },
      'a counted deposit transfer was reorged out: the payment is not covered',
    );
    // Counted for alerting (paygate_settlement_reorgs_total), as direct settlement's reorganisations are.
    deps.observer?.settlementReorg?.({ chain: t.chain, outcome: 'depositLost' });
  });
}

/**
 * The amount of `asset` that pays the payment: the payment's amount scaled to the token, as options price it, for a
 * stablecoin of the payment's currency (a 1:1 peg: fixed, so a plain transfer can be asked for it); null for an asset
 * whose amount moves with a rate, which a deposit cannot pay.
 */
export async function askedAmount(
  deps: DetectionDeps,
  payment: PaymentRow,
  chain: string,
  asset: string,
): Promise<Asked | null> {
  const configured = allChains(deps.chains)
    .find((c) => c.config.caip2 === chain)
    ?.config.assets.find((a) => a.caip19 === asset);
  if (!configured) return null;
  const currency = currencyOfUnit(payment.amount_unit);
  if (!currency) {
    return payment.amount_unit === `caip19/${asset}`
      ? { amount: BigInt(payment.amount_value), decimals: configured.decimals }
      : null;
  }
  const quote = await deps.pricing.quote(
    { currency: currency.code, digits: currency.digits, minor: BigInt(payment.amount_value) },
    { ...configured, chainCaip2: chain },
    deps.now(),
  );
  return quote && quote.rate === null && quote.amount > 0n
    ? { amount: quote.amount, decimals: configured.decimals }
    : null;
}

/** The amount of an asset that pays a payment, and the asset's decimals. */
interface Asked {
  amount: bigint;
  decimals: number;
}

interface Completion {
  asset: string;
  needed: bigint;
  /** The transfers that pay it, in chain order; the last completes it. */
  paying: SeenTransferRow[];
  /** What the last one brought beyond the amount. */
  excess: bigint;
}

function inTime(payment: PaymentRow, t: SeenTransferRow): boolean {
  const minedAt = t.blockTime === null ? Math.floor(t.detectedAt / 1000) : t.blockTime;
  return minedAt * 1000 <= payment.expires_at;
}

/** The first asset whose counted transfers mined by expiresAt reach its amount, in chain order. */
function completionOf(
  payment: PaymentRow,
  counted: SeenTransferRow[],
  asked: Map<string, Asked | null>,
): Completion | null {
  let best: Completion | null = null;
  for (const [asset, ask] of asked) {
    if (!ask) continue;
    let sum = 0n;
    const paying: SeenTransferRow[] = [];
    for (const t of counted) {
      if (t.asset !== asset || !inTime(payment, t)) continue;
      paying.push(t);
      sum += t.amount;
      if (sum >= ask.amount) {
        const candidate = { asset, needed: ask.amount, paying, excess: sum - ask.amount };
        if (!best || byChainOrder(t, best.paying.at(-1)!) < 0) best = candidate;
        break;
      }
    }
  }
  return best;
}

interface Finding {
  kind: DiscrepancyKind;
  transfer: SeenTransferRow;
  expected: bigint;
  note: string;
}

/** What a payment that ended cannot take: every counted transfer but those that paid it (§17). */
function findingsOf(
  payment: PaymentRow,
  counted: SeenTransferRow[],
  claim: ClaimRow | null,
  asked: Map<string, Asked | null>,
): Finding[] {
  if (payment.status === 'succeeded') {
    const paid = new Map<string, bigint>();
    if (claim) {
      for (const t of counted) if (t.txId === claim.txId) paid.set(t.id, t.amount);
    } else {
      const option = payment.stages.processing?.option_amount;
      const asset = option?.unit.replace(/^caip19\//, '');
      const completion =
        option && asset
          ? completionOf(payment, counted, new Map([[asset, { amount: BigInt(option.value), decimals: 0 }]]))
          : null;
      for (const t of completion?.paying ?? []) paid.set(t.id, t.amount);
      const last = completion?.paying.at(-1);
      if (last && completion!.excess > 0n) paid.set(last.id, last.amount - completion!.excess);
    }
    return counted.flatMap((t) => {
      const taken = paid.get(t.id) ?? 0n;
      if (taken >= t.amount) return [];
      return [
        {
          kind: 'overpayment' as const,
          transfer: t,
          expected: taken,
          note:
            taken > 0n
              ? 'Deposit above the amount asked; the excess is refundable.'
              : 'Deposit to a payment already paid; refundable.',
        },
      ];
    });
  }
  return counted.map((t) => ({
    kind: 'late_payment' as const,
    transfer: t,
    expected: asked.get(t.asset)?.amount ?? 0n,
    note: `Deposit to a payment that is ${payment.status}; refundable.`,
  }));
}

/**
 * Credits one payment from its transfers on `chain`, in one transaction with the payment locked. Answers whether it
 * moved the payment to `succeeded`.
 */
async function creditPayment(
  deps: DetectionDeps,
  chain: string,
  paymentId: string,
  states: Map<string, OnChainState>,
): Promise<boolean> {
  const stored = await findPayment(deps.db.knex, paymentId);
  if (!stored) return false;
  // A payment past its deadline (and the late-confirm grace) ends before its transfers are looked at.
  const payment = await expireIfOverdue(deps, stored);
  const merchant = await findMerchant(deps.db.knex, payment.merchant_id);
  const transfers = await listTransfersOfPayment(deps.db.knex, paymentId, chain);
  const asked = new Map<string, Asked | null>();
  for (const t of transfers) {
    if (!asked.has(t.asset)) asked.set(t.asset, await askedAmount(deps, payment, chain, t.asset));
  }
  const stateOf = (t: SeenTransferRow): OnChainState | undefined => (t.state === 'final' ? 'final' : states.get(t.id));
  // Money that no payout can send on (§22.14): the merchant has no settlement address on this chain (any more), or
  // the payment's mode is not paid by deposit. It never pays the payment and is never the merchant's payable.
  const routable = paysOutOn(merchant, chain) && (await settlementModeOf(deps.db.knex, payment)).paidByDeposit;
  const held: SeenTransferRow[] = [];
  try {
    const succeeded = await deps.db.knex.transaction(async (trx) => {
      held.length = 0;
      let current = (await findPayment(trx, paymentId, { forUpdate: true }))!;
      const live = (await listTransfersOfPayment(trx, paymentId, chain)).filter((t) => t.state !== 'reorged');
      const confirmed = live.filter((t) => ['confirmed', 'final'].includes(stateOf(t) ?? 'pending'));
      // Read under the payment's lock, before this transaction credits anything: what is new here is told once.
      const credited = new Set(
        (await listLedgerEntries(trx, { paymentId, kinds: ['received'] })).map((e) => e.entryKey),
      );
      // Everything that arrived is in the ledger as received: it is at the deposit address, screened or not.
      await insertLedgerEntries(
        trx,
        confirmed.map((t) => receivedEntry(current, t, deps.now())),
      );
      const claim = await findClaimOfPayment(trx, paymentId);
      const { counted, screened } = await splitScreened(deps, trx, current, chain, confirmed, claim);
      for (const t of screened.filter((x) => x.isNew)) {
        await recordFinding(deps, trx, current, screenedFinding(t.transfer));
        held.push(t.transfer);
      }
      if (!routable) {
        for (const t of counted) await recordFinding(deps, trx, current, unroutable(t));
        for (const t of live)
          if (stateOf(t) === 'final' && t.state === 'seen') await settleSeenTransfer(trx, t.id, 'final');
        return false;
      }
      let succeeded = false;
      if (current.status === 'requires_action' && !claim) {
        const completion = completionOf(current, counted, asked);
        if (completion) {
          current = await succeed(deps, trx, current, completion, merchant?.fee_config ?? null, asked);
          succeeded = true;
        } else await tellPartialArrivals(deps, trx, current, counted, credited, asked);
      }
      // Open payments may still be paid (or their claim's transaction not yet known): findings wait until they end.
      if (current.status === 'requires_action' || current.status === 'processing') return succeeded;
      for (const f of findingsOf(current, counted, claim, asked)) await recordFinding(deps, trx, current, f);
      for (const t of live)
        if (stateOf(t) === 'final' && t.state === 'seen') await settleSeenTransfer(trx, t.id, 'final');
      return succeeded;
    });
    for (const t of held) {
      deps.observer?.screenedDeposit?.({ chain: t.chain });
      // The sender is not logged: the finding names the transaction, and the operator reads it there.
      deps.logger.warn(
        { paymentId, chain: t.chain, txId: t.txId },
        'a deposit from a screened sender is held at its deposit address: it pays nothing',
      );
    }
    return succeeded;
  } catch (err) {
    // Confirm, a cancel or the expiry sweep moved it meanwhile: the next scan looks at it again as it is then.
    if (err instanceof ApiError && err.code === 'invalid_state') return false;
    throw err;
  }
}

/** Each arrival new to the ledger that leaves the open payment short, with what its asset has brought so far. */
async function tellPartialArrivals(
  deps: DetectionDeps,
  trx: Knex.Transaction,
  payment: PaymentRow,
  counted: SeenTransferRow[],
  credited: Set<string>,
  asked: Map<string, Asked | null>,
): Promise<void> {
  if (!deps.partialArrivals) return;
  const paying = counted.filter((t) => inTime(payment, t)).sort(byChainOrder);
  const sums = new Map<string, bigint>();
  for (const t of paying) {
    const received = (sums.get(t.asset) ?? 0n) + t.amount;
    sums.set(t.asset, received);
    const ask = asked.get(t.asset);
    if (!ask || credited.has(ledgerKeyOf(t))) continue;
    await deps.partialArrivals(trx, {
      payment,
      chain: t.chain,
      asset: t.asset,
      asked: ask.amount,
      received,
      txId: t.txId,
    });
  }
}

/**
 * The confirmed transfers that may pay the payment, and those from a screened sender (§25.8), each marked new when
 * it is not yet held. Held once, held for good: a transaction with a `screened_sender` finding stays out whatever the
 * list says now. The transaction of the payment's claim is never screened here: confirm screened its account before
 * it was accepted (checkout/confirm.ts).
 */
async function splitScreened(
  deps: DetectionDeps,
  trx: Knex.Transaction,
  payment: PaymentRow,
  chain: string,
  confirmed: SeenTransferRow[],
  claim: ClaimRow | null,
): Promise<{ counted: SeenTransferRow[]; screened: { transfer: SeenTransferRow; isNew: boolean }[] }> {
  // The finding's key is the transaction: every transfer of a held transaction is held with it.
  const already = await screenedTransactionsOf(trx, payment.id, chain);
  const counted: SeenTransferRow[] = [];
  const screened: { transfer: SeenTransferRow; isNew: boolean }[] = [];
  for (const t of confirmed) {
    const listed = t.from !== null && claim?.txId !== t.txId && deps.screening.matches(`${t.chain}:${t.from}`);
    if (already.has(t.txId)) screened.push({ transfer: t, isNew: false });
    else if (listed) {
      screened.push({ transfer: t, isNew: true });
      already.add(t.txId);
    } else counted.push(t);
  }
  return { counted, screened };
}

function screenedFinding(t: SeenTransferRow): Finding {
  return {
    kind: 'screened_sender',
    transfer: t,
    expected: 0n,
    note:
      `Deposit on ${t.chain} from an account on the screening list: it pays nothing, is not refundable, and is ` +
      'held at the deposit address for the operator.',
  };
}

function unroutable(t: SeenTransferRow): Finding {
  return {
    kind: 'unroutable_deposit',
    transfer: t,
    expected: 0n,
    note: `Deposit on ${t.chain}, where the merchant has no settlement address: it pays nothing; refundable.`,
  };
}

function receivedEntry(payment: PaymentRow, t: SeenTransferRow, now: number): LedgerEntry {
  return {
    entryKey: ledgerKeyOf(t),
    kind: 'received',
    merchantId: payment.merchant_id,
    live: payment.live,
    mode: 'collected',
    chain: t.chain,
    asset: t.asset,
    amount: t.amount,
    address: t.address,
    paymentId: payment.id,
    txId: t.txId,
    createdAt: now,
  };
}

/** requires_action → processing → succeeded in the caller's transaction; the ledger's fee and payable follow the event. */
async function succeed(
  deps: DetectionDeps,
  trx: Knex.Transaction,
  payment: PaymentRow,
  completion: Completion,
  feeConfig: Record<string, unknown> | null,
  asked: Map<string, Asked | null>,
): Promise<PaymentRow> {
  const now = deps.now();
  const unit = `caip19/${completion.asset}`;
  const first = completion.paying[0]!;
  const last = completion.paying.at(-1)!;
  const decimals = asked.get(completion.asset)?.decimals ?? 0;
  const fee: FeeBreakdown | null = feeOnAsset(feeConfig, { unit, value: completion.needed.toString() }, decimals, null);
  const net = completion.needed - BigInt(fee?.total_amount.value ?? '0');
  await transitionPayment(
    deps,
    payment.id,
    {
      to: 'processing',
      from: ['requires_action'],
      stages: {
        processing: {
          processing_at: iso(now),
          option_amount: { unit, value: completion.needed.toString() },
          fee,
          settlement_amount: { unit, value: net.toString() },
          buyer_caip10: `${first.chain}:${first.from ?? first.address}`,
          chain_caip2: first.chain,
        },
      },
    },
    trx,
  );
  const { payment: done } = await transitionPayment(
    deps,
    payment.id,
    { to: 'succeeded', from: ['processing'], stages: { success: { succeeded_at: iso(now), tx_id: last.txId } } },
    trx,
  );
  return done;
}

async function recordFinding(deps: DetectionDeps, trx: Knex.Transaction, payment: PaymentRow, f: Finding) {
  const row: DiscrepancyRow = {
    id: `dsc_${randomBase62(20)}`,
    paymentId: payment.id,
    kind: f.kind,
    live: payment.live,
    chain: f.transfer.chain,
    txId: f.transfer.txId,
    assetUnit: `caip19/${f.transfer.asset}`,
    expectedValue: f.expected.toString(),
    receivedValue: f.transfer.amount.toString(),
    note: f.note,
    createdAt: deps.now(),
  };
  await insertDiscrepancy(trx, row);
  // The funds it holds are the buyer's: an `excess` in the ledger where they are, refundable from itself (excess.ts).
  const excess = excessEntry(row, {
    merchantId: payment.merchant_id,
    address: f.transfer.address,
    position: f.transfer.position,
  });
  if (excess) await insertLedgerEntries(trx, [excess]);
}

/**
 * Queues a scan of each chain that has deposit work: an address still watched, or a transfer not yet final. A chain
 * without (no merchant in collected mode, or none of its payments recent) gets no job, so a server that does not use
 * collected settlement queues nothing and logs nothing every interval. The job key keeps one queued per chain however
 * many processes ask.
 */
export async function enqueueDepositScans(deps: DetectionDeps): Promise<void> {
  for (const chain of scannedChains(deps)) {
    if (!(await hasDepositWork(deps.db.knex, chain, deps.now() - WATCH_AFTER_END_MS))) continue;
    await deps.jobs.add(deps.db.knex, SCAN_DEPOSITS_TASK, { chain }, { jobKey: `${SCAN_DEPOSITS_TASK}:${chain}` });
  }
}

export function detectionTasks(deps: DetectionDeps): TaskList {
  return {
    [SCAN_DEPOSITS_TASK]: async (payload) => {
      assertPayload<{ chain: string }>(payload, ['chain'], SCAN_DEPOSITS_TASK);
      const report = await scanDeposits(deps, payload.chain);
      // A scan that found nothing is the common case every interval: logged at debug.
      return report.recorded + report.succeeded.length + report.reorged.length === 0 ? IDLE : undefined;
    },
  };
}
