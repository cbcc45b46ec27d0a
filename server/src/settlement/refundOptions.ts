/**
 * How a payment can be refunded, for the dashboard's payment page (docs/decisions.md §26.21): the same facts the
 * refund itself checks (refunds.ts, refundPolicy.ts), read without a lock, so that the page offers only what the API
 * takes and shows the minimum, the network fee and the destination before anything is sent. The refund still decides:
 * a payout planned in between is refused there with its own message.
 */
import type { Knex } from 'knex';
import { allChains } from '../chains/index.js';
import { listLedgerEntries, type LedgerEntry, type LedgerKind } from '../db/queries/ledgerEntries.js';
import { payoutOfPayment } from '../db/queries/payoutRows.js';
import { refundsOfPayment } from '../db/queries/refundRequests.js';
import type { components } from '../generated/dashboard.js';
import type { LifecycleDeps } from '../payments/lifecycle.js';
import { readPayment, type MerchantScope } from '../payments/merchantPayments.js';
import { excessLeft } from './excess.js';
import { feesCharged, refundPolicyUnits, type RefundPolicyDeps } from './refundPolicy.js';
import { netRefunded, payingWallet } from './refunds.js';

export type RefundOptions = components['schemas']['RefundOptions'];
type Source = RefundOptions['sources'][number];

const OPEN = new Set(['awaiting_claim', 'planned', 'sent']);

export async function refundOptions(
  deps: LifecycleDeps & RefundPolicyDeps,
  scope: MerchantScope,
  id: string,
): Promise<RefundOptions> {
  const payment = await readPayment(deps, scope, id);
  const db = deps.db.knex;
  const [payable] = await listLedgerEntries(db, { paymentId: id, kinds: ['payable'] });
  // A direct payment's `received` is at the merchant's own address: only collected settlement's is held here.
  const received = sumOf(
    await listLedgerEntries(db, { paymentId: id, kinds: ['received'], mode: 'collected' }),
    'received',
  );
  const sources: Source[] = [];
  const offer = (found: Source | null) => found && sources.push(found);
  if (payable) offer(await paymentSource(deps, db, id, payable));
  const excess = (await excessLeft(db, id))[0];
  if (excess) offer(await source(deps, db, id, 'excess', excess.chain, excess.asset, excess.amount, false));
  const refunds = (await refundsOfPayment(db, id)).filter((r) => r.source === 'excess');
  const refundState: RefundOptions['refund_state'] = !excess
    ? 'none'
    : refunds.some((r) => OPEN.has(r.state))
      ? 'refunding'
      : excess.amount > 0n
        ? 'to_refund'
        : 'refunded';
  const how: RefundOptions['how'] =
    sources.length > 0
      ? 'onchain'
      : payment.status === 'succeeded' && payment.stages.refunded === null && !received
        ? 'record'
        : 'none';
  return {
    how,
    received: received ? { unit: `caip19/${received.asset}`, value: received.amount.toString() } : null,
    refund_state: refundState,
    sources,
  };
}

/**
 * What is left of the payment's own money: its payable less its refunds and their network fees, counted as the
 * refund counts them (refunds.ts `netRefunded`, refundPolicy.ts `feesCharged`); nothing once a payout holds it.
 */
async function paymentSource(
  deps: LifecycleDeps & RefundPolicyDeps,
  db: Knex,
  id: string,
  payable: LedgerEntry,
): Promise<Source | null> {
  // Once a payout holds the payment (planned, sent or final), none of its money can be refunded from here.
  const left = (await payoutOfPayment(db, id))
    ? 0n
    : payable.amount - (await netRefunded(db, id)) - (await feesCharged(db, id));
  return source(deps, db, id, 'payment', payable.chain, payable.asset, left, true);
}

async function source(
  deps: LifecycleDeps & RefundPolicyDeps,
  db: Knex,
  id: string,
  kind: Source['source'],
  chain: string,
  asset: string,
  left: bigint,
  charged: boolean,
): Promise<Source | null> {
  // An asset no chain of this server serves any more: nothing here could send it, so nothing is offered.
  if (!servesAsset(deps, chain, asset)) return null;
  const policy = refundPolicyUnits(deps, chain, asset);
  const fee = charged ? policy.networkFee : 0n;
  const money = (value: bigint) => ({ unit: `caip19/${asset}`, value: (value > 0n ? value : 0n).toString() });
  return {
    source: kind,
    left: money(left - fee),
    minimum: money(policy.minimum),
    network_fee: money(fee),
    destination: (await payingWallet(db, id, chain)) === null ? 'claim_link' : 'paying_wallet',
    owner_above: money(policy.ownerAbove),
  };
}

function servesAsset(deps: RefundPolicyDeps, chain: string, asset: string): boolean {
  return (deps.chains ? allChains(deps.chains) : []).some(
    (c) => c.config.caip2 === chain && c.config.assets.some((a) => a.caip19 === asset),
  );
}

function sumOf(entries: LedgerEntry[], kind: LedgerKind): { asset: string; amount: bigint } | null {
  const of = entries.filter((e) => e.kind === kind);
  if (of.length === 0) return null;
  return { asset: of[0]!.asset, amount: of.reduce((a, e) => a + e.amount, 0n) };
}
