/**
 * The refund policy (docs/decisions.md §22.13): what an on-chain refund must satisfy beyond the balance it draws on,
 * and what it costs the merchant. Every on-chain refund is a transaction the operator pays for (about 82k gas on EVM,
 * rent for a new token account on Solana), out of the collection account all merchants share; so:
 *   - it sends at least PAYGATE_REFUND_MINIMUM of its asset, and a payment has at most
 *     PAYGATE_REFUND_LIMIT_PER_PAYMENT of them (claim links that ended unused sent nothing and do not count);
 *   - the merchant bears its network cost: PAYGATE_REFUND_NETWORK_FEE, charged with the refund's reservation as a
 *     `refund_network_fee` ledger entry, out of the same payment's money (so a payout never owes a payment less than
 *     nothing), given back with the reservation when the refund is never sent;
 *   - a refund the paying wallet does not receive (a claim link: whoever holds it names the address), or one above
 *     PAYGATE_REFUND_OWNER_ABOVE, moves the merchant's money where an owner has not said it may go: it needs an API
 *     key an owner created with refunds allowed (`can_refund`). Below the threshold to the paying wallet, any key.
 */
import type { Knex } from 'knex';
import { allChains, type Chains } from '../chains/index.js';
import type { SettlementConfig } from '../config.js';
import { listLedgerEntries, type LedgerEntry } from '../db/queries/ledgerEntries.js';
import { refundsOfPayment, type OnchainRefundRow } from '../db/queries/refundRequests.js';
import { ApiError } from '../errors.js';
import { insertLedgerEntries } from './ledger.js';
import { payoutMinimumUnits } from './payouts.js';
import { amountFor, type AmountPerAsset } from '../refundPolicyConfig.js';

export interface RefundPolicyDeps {
  config: { settlement: Pick<SettlementConfig, 'refunds'> };
  chains: Chains | null;
}

/**
 * Who asks for a refund. `api_key`: a merchant API key, allowed to refund beyond the common case only when an owner
 * created it so (`canRefund`). `operator`: code in the server's own process (tests, tools): no HTTP surface reaches it.
 */
export type RefundActor =
  | { kind: 'api_key'; id: string; canRefund: boolean }
  /** A dashboard user; `canRefund` for an owner (the role that allows such keys). */
  | { kind: 'user'; id: string; canRefund: boolean }
  | { kind: 'operator' };

export const OPERATOR: RefundActor = { kind: 'operator' };

export interface RefundRequest {
  paymentId: string;
  chain: string;
  asset: string;
  /** What refunds.ts found refundable: the amount asked, or (none asked) all that is left of the payment. */
  amount: bigint;
  /** Whether the merchant named the amount (a refusal then names `amount`) or asked for all that is left. */
  asked: boolean;
  /** What is left of the payment's payable after earlier refunds, as refunds.ts counts it (fees not counted). */
  left: bigint;
  /** The balance the refund draws on, as refunds.ts found it. */
  balance: bigint;
  /** The paying wallet's address, or null: the refund goes through a claim link. */
  destination: string | null;
  actor: RefundActor;
}

/** The refund the policy allows: what the buyer receives and what the merchant is charged for the transaction. */
export interface AllowedRefund {
  amount: bigint;
  networkFee: bigint;
}

/** The policy's amounts for one asset, in its minor units: what the dashboard shows before a refund is sent. */
export function refundPolicyUnits(
  deps: RefundPolicyDeps,
  chain: string,
  asset: string,
): { minimum: bigint; networkFee: bigint; ownerAbove: bigint } {
  const policy = deps.config.settlement.refunds;
  const decimals = decimalsOf(deps, { chain, asset });
  const units = (setting: AmountPerAsset) => payoutMinimumUnits(amountFor(setting, asset), decimals);
  return { minimum: units(policy.minimum), networkFee: units(policy.networkFee), ownerAbove: units(policy.ownerAbove) };
}

/** Refused past this many refunds; refunds that ended unused (never sent) are not counted. */
const NEVER_SENT = new Set<OnchainRefundRow['state']>(['expired', 'cancelled']);

/**
 * Checks a refund against the policy, in the refund's transaction (after the merchant's balance lock), and answers
 * what it sends and costs. Refusals: 409 invalid_state past the limit or when the payment or balance cannot cover the
 * amount and its fee, 400 params_validation (`amount`) below the minimum, 403 forbidden when an owner must allow it.
 */
export async function checkRefundPolicy(
  deps: RefundPolicyDeps,
  trx: Knex.Transaction,
  req: RefundRequest,
): Promise<AllowedRefund> {
  const id = req.paymentId;
  await refusePastLimit(trx, id, deps.config.settlement.refunds.perPayment);

  const { minimum, networkFee, ownerAbove } = refundPolicyUnits(deps, req.chain, req.asset);
  // The payment's own money pays its refunds' fees: what is left of it less the fees charged so far.
  const left = req.left - (await feesCharged(trx, id));
  // Earlier refunds and their fees took all of it: refunded in full, as refunds.ts says when no fee is involved.
  if (left <= 0n) throw new ApiError('already_refunded', `Payment ${id} is refunded in full already.`);
  const amount = req.asked ? req.amount : left - networkFee;
  if (amount + networkFee > left)
    throw new ApiError(
      'invalid_state',
      `A refund of ${req.asked ? amount : 'what is left'} plus its network fee of ${networkFee} exceeds the ${left > 0n ? left : 0n} left of payment ${id} (its settlement amount less earlier refunds and their network fees); the merchant bears each refund's network cost.`,
    );
  if (amount < minimum || amount <= 0n) {
    if (req.asked)
      throw new ApiError(
        'params_validation',
        `amount ${amount} is below the minimum on-chain refund of ${minimum} minor units of ${req.asset}: each refund is a transaction on chain.`,
        { param: 'amount' },
      );
    throw new ApiError(
      'invalid_state',
      `What is left of payment ${id} after the network fee (${amount}) is below the minimum on-chain refund of ${minimum} minor units of ${req.asset}.`,
    );
  }

  const needsOwner = req.destination === null || amount > ownerAbove;
  if (needsOwner && req.actor.kind === 'user' && !req.actor.canRefund)
    throw new ApiError(
      'forbidden',
      req.destination === null
        ? `A refund through a claim link sends the merchant's money to an address its holder chooses: only an owner may send it. You may refund to the paying wallet, up to ${ownerAbove} minor units.`
        : `A refund of more than ${ownerAbove} minor units of ${req.asset} needs an owner.`,
    );
  if (needsOwner && req.actor.kind === 'api_key' && !req.actor.canRefund)
    throw new ApiError(
      'forbidden',
      req.destination === null
        ? `A refund through a claim link sends the merchant's money to an address its holder chooses: it needs an API key an owner created in the dashboard with refunds allowed (canRefund). This key (${req.actor.id}) may refund only to the paying wallet, up to ${ownerAbove} minor units.`
        : `A refund of more than ${ownerAbove} minor units of ${req.asset} needs an API key an owner created in the dashboard with refunds allowed (canRefund); this key (${req.actor.id}) has not.`,
    );

  if (amount + networkFee > req.balance)
    throw new ApiError(
      'invalid_state',
      `Refund of ${amount} plus its network fee of ${networkFee} exceeds the merchant's unpaid balance of ${req.balance} on ${req.chain} in ${req.asset}; what was paid out cannot be refunded from here.`,
    );
  return { amount, networkFee };
}

/**
 * The policy for a refund of an excess (refunds.ts, `source: 'excess'`): the limit per payment, the minimum and who
 * may send it, as for any refund. No network fee: the excess is the buyer's money, not the merchant's balance, and
 * the minimum keeps dust from being returned at the operator's cost (docs/decisions.md §22.13).
 */
export async function checkExcessRefundPolicy(
  deps: RefundPolicyDeps,
  trx: Knex.Transaction,
  req: Pick<RefundRequest, 'paymentId' | 'chain' | 'asset' | 'amount' | 'asked' | 'destination' | 'actor'>,
): Promise<void> {
  await refusePastLimit(trx, req.paymentId, deps.config.settlement.refunds.perPayment);
  const { minimum, ownerAbove } = refundPolicyUnits(deps, req.chain, req.asset);
  if (req.amount < minimum || req.amount <= 0n)
    throw new ApiError(
      req.asked ? 'params_validation' : 'invalid_state',
      `An excess refund of ${req.amount} is below the minimum on-chain refund of ${minimum} minor units of ${req.asset}: each refund is a transaction on chain.`,
      req.asked ? { param: 'amount' } : undefined,
    );
  if ((req.destination === null || req.amount > ownerAbove) && req.actor.kind !== 'operator' && !req.actor.canRefund)
    throw new ApiError(
      'forbidden',
      `A refund of an excess ${req.destination === null ? 'through a claim link' : `of more than ${ownerAbove} minor units`} ${req.actor.kind === 'user' ? 'needs an owner' : `needs an API key an owner created in the dashboard with refunds allowed (canRefund); this key (${req.actor.id}) has not`}.`,
    );
}

/** Refused past the limit of on-chain refunds per payment (refunds that ended unused are not counted). */
async function refusePastLimit(trx: Knex.Transaction, paymentId: string, perPayment: number): Promise<void> {
  const earlier = (await refundsOfPayment(trx, paymentId)).filter((r) => !NEVER_SENT.has(r.state)).length;
  if (earlier >= perPayment)
    throw new ApiError(
      'invalid_state',
      `Payment ${paymentId} has ${earlier} on-chain refunds, the most one payment may have (PAYGATE_REFUND_LIMIT_PER_PAYMENT); refund the rest yourself.`,
    );
}

/** The payment's refund network fees not given back. */
/** The network fees the payment's refunds were charged, less those given back (the refund never sent). */
export async function feesCharged(trx: Knex, paymentId: string): Promise<bigint> {
  const entries = await listLedgerEntries(trx, { paymentId, kinds: ['refund_network_fee', 'refund_fee_released'] });
  return entries.reduce((a, e) => a + (e.kind === 'refund_network_fee' ? e.amount : -e.amount), 0n);
}

function decimalsOf(deps: RefundPolicyDeps, req: Pick<RefundRequest, 'chain' | 'asset'>): number {
  const found = (deps.chains ? allChains(deps.chains) : [])
    .find((c) => c.config.caip2 === req.chain)
    ?.config.assets.find((a) => a.caip19 === req.asset);
  // A chain removed from PAYGATE_CHAINS since the payment: nothing here could send the refund.
  if (!found)
    throw new ApiError(
      'invalid_state',
      `${req.asset} is not an asset this server serves on ${req.chain} now, so it cannot send this refund; ask the operator.`,
    );
  return found.decimals;
}

/**
 * The network fee's entry, written beside the refund's `refunded` reservation in its transaction (once: the key is
 * the refund's). No entry for a fee of 0.
 */
export async function chargeRefundNetworkFee(
  trx: Knex.Transaction,
  refund: Pick<OnchainRefundRow, 'id' | 'merchant_id' | 'payment_id' | 'chain_caip2' | 'asset_caip19'>,
  live: boolean,
  networkFee: bigint,
  now: number,
): Promise<void> {
  if (networkFee <= 0n) return;
  await insertLedgerEntries(trx, [feeEntry('refund_network_fee', refund, live, networkFee, now)]);
}

/**
 * Gives a refund's network fee back when the refund will never be sent (its claim link ended, its move failed), in
 * the transaction that writes its `refund_released`; once (the key is the refund's). Nothing when none was charged.
 */
export async function releaseRefundNetworkFee(
  trx: Knex.Transaction,
  refund: Pick<OnchainRefundRow, 'id' | 'merchant_id' | 'payment_id' | 'chain_caip2' | 'asset_caip19'>,
  live: boolean,
  now: number,
): Promise<void> {
  const [charged] = (
    await listLedgerEntries(trx, { paymentId: refund.payment_id, kinds: ['refund_network_fee'] })
  ).filter((e) => e.refundId === refund.id);
  if (!charged) return;
  await insertLedgerEntries(trx, [feeEntry('refund_fee_released', refund, live, charged.amount, now)]);
}

function feeEntry(
  kind: 'refund_network_fee' | 'refund_fee_released',
  refund: Pick<OnchainRefundRow, 'id' | 'merchant_id' | 'payment_id' | 'chain_caip2' | 'asset_caip19'>,
  live: boolean,
  amount: bigint,
  now: number,
): LedgerEntry {
  return {
    entryKey: `${kind}:${refund.id}`,
    kind,
    merchantId: refund.merchant_id,
    live,
    mode: 'collected',
    chain: refund.chain_caip2,
    asset: refund.asset_caip19,
    amount,
    address: null,
    paymentId: refund.payment_id,
    refundId: refund.id,
    createdAt: now,
  };
}
