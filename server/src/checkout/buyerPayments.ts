/**
 * The buyer's side of a payment that needs no chain: read, status (with long polling) and the buyer's cancel.
 * A payment is addressed by its unguessable id alone, whatever merchant it belongs to (docs/decisions.md §4); only
 * the mode must match the credential's.
 */
import { allChains, type Chains } from '../chains/index.js';
import { findMerchant, type MerchantRow } from '../db/queries/accounts.js';
import { findClaimOfPayment } from '../db/queries/claims.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { receivedTransfers } from '../db/queries/seenTransfers.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { currencyOfUnit } from '../currencies.js';
import { expireIfOverdue, transitionPayment, type LifecycleDeps } from '../payments/lifecycle.js';
import type { PaymentNotifier } from '../payments/paymentWatch.js';
import { SAMPLE } from '../payments/simulate.js';
import { iso } from '../payments/snapshot.js';
import { isFinal, POLL_IN_MS } from '../payments/stateMachine.js';
import { failureCodeOf } from './failureCode.js';
import { cancelledReason } from '../payments/cancelledReason.js';

export type PaymentInfo = components['schemas']['PaymentInfo'];
export type GatewayStatusResponse = components['schemas']['PaymentStatusResponse'];
export type GatewayCancelResponse = components['schemas']['CancelPaymentResponse'];
type AmountDisplay = components['schemas']['AmountDisplay'];
type Amount = components['schemas']['Amount'];

export interface BuyerPaymentDeps extends LifecycleDeps {
  /** Where on-chain asset names and decimals come from; null in a process that serves no chain. */
  chains: Chains | null;
}

/** The payments a request may touch: those of the credential's mode. */
export interface GatewayScope {
  live: boolean;
}

/**
 * An unknown id is 404, but a payment of the other mode is 403 `forbidden` (§4): the buyer already holds the id,
 * so hiding it would only make a test/live mix-up harder to diagnose.
 */
export async function readBuyerPayment(deps: LifecycleDeps, scope: GatewayScope, id: string): Promise<PaymentRow> {
  const payment = await findPayment(deps.db.knex, id);
  if (!payment) throw new ApiError('payment_not_found', `No payment with id ${id}.`);
  if (payment.live !== scope.live) {
    const [credential, theirs] = scope.live ? ['live', 'test'] : ['test', 'live'];
    throw new ApiError(
      'forbidden',
      `Payment ${id} is a ${theirs} payment; this ${credential} credential cannot use it.`,
    );
  }
  return expireIfOverdue(deps, payment);
}

function fiatDisplay(unit: string): AmountDisplay {
  const currency = currencyOfUnit(unit);
  // Creation accepts active currencies only; one withdrawn since is still shown by its code.
  return {
    assetSymbol: currency?.code ?? unit.slice('iso4217/'.length),
    assetName: currency?.name ?? unit.slice('iso4217/'.length),
    decimals: currency?.digits ?? 0,
    iconUrl: null,
    networkIconUrl: null,
    networkName: null,
  };
}

/** Simulated payments (test mode) pay in a token no chain configures; its display is documented with the sample. */
const SAMPLE_DISPLAY: AmountDisplay = {
  assetSymbol: 'TEST',
  assetName: 'Simulated test token',
  decimals: SAMPLE.decimals,
  iconUrl: null,
  networkIconUrl: null,
  networkName: 'Simulated chain',
};

export function assetDisplay(chains: Chains | null, unit: string): AmountDisplay {
  if (unit === SAMPLE.unit) return SAMPLE_DISPLAY;
  const caip19 = unit.slice('caip19/'.length).toLowerCase();
  for (const chain of chains ? allChains(chains) : []) {
    const asset = chain.config.assets.find((a) => a.caip19.toLowerCase() === caip19);
    if (asset) {
      return {
        assetSymbol: asset.symbol,
        assetName: asset.name,
        decimals: asset.decimals,
        iconUrl: asset.iconUrl,
        networkIconUrl: asset.networkIconUrl,
        networkName: asset.networkName,
      };
    }
  }
  throw new Error(`no configured asset ${unit}: cannot describe the amount paid`);
}

/** The paying account, once a confirm recorded it, with the wallet (credential label) that confirmed. */
async function buyerOf(deps: BuyerPaymentDeps, payment: PaymentRow): Promise<PaymentInfo['buyer']> {
  const account = payment.stages.processing?.buyer_caip10;
  if (typeof account !== 'string') return null;
  const claim = await findClaimOfPayment(deps.db.knex, payment.id);
  const wallet = claim?.details.wallet;
  return {
    accountCaip10: account,
    accountProviderName: typeof wallet === 'string' ? wallet : 'Unknown wallet',
    accountProviderIcon: null,
  };
}

export async function buyerPaymentInfo(deps: BuyerPaymentDeps, scope: GatewayScope, id: string): Promise<PaymentInfo> {
  const payment = await readBuyerPayment(deps, scope, id);
  const merchant = await findMerchant(deps.db.knex, payment.merchant_id);
  if (!merchant) throw new Error(`payment ${id} names merchant ${payment.merchant_id}, which does not exist`);
  return paymentInfoOf(payment, merchant, await buyerOf(deps, payment));
}

/**
 * getPayment's answer from rows already read. The hosted checkout page embeds it for an open payment (no buyer yet),
 * so the page shows the payment without first calling the gateway (decisions.md §26.15).
 */
export function paymentInfoOf(
  payment: PaymentRow,
  merchant: Pick<MerchantRow, 'name' | 'icon_url'>,
  buyer: PaymentInfo['buyer'],
): PaymentInfo {
  return {
    status: payment.status,
    amount: { unit: payment.amount_unit, value: payment.amount_value, display: fiatDisplay(payment.amount_unit) },
    expiresAt: Math.floor(payment.expires_at / 1000),
    merchant: { name: merchant.name, iconUrl: merchant.icon_url },
    buyer,
    // What was sold, for the buyer to check; never the merchant's buyer record or metadata (§30.2).
    description: payment.description ?? null,
    lineItems: lineItemsOf(payment),
  };
}

function lineItemsOf(payment: PaymentRow): NonNullable<PaymentInfo['lineItems']> {
  if (!payment.line_items) return [];
  const lines = JSON.parse(payment.line_items) as { name: string; quantity: number; unit_amount: string }[];
  return lines.map((l) => ({ name: l.name, quantity: l.quantity, unitAmount: l.unit_amount }));
}

export function buyerStatusAnswer(deps: BuyerPaymentDeps, payment: PaymentRow): GatewayStatusResponse {
  const final = isFinal(payment.status);
  let info: GatewayStatusResponse['info'] = null;
  if (payment.status === 'succeeded') {
    const txId = payment.stages.success?.tx_id;
    const paidAt = Date.parse(String(payment.stages.success?.succeeded_at));
    const paid = payment.stages.processing?.option_amount;
    if (typeof txId !== 'string' || !paid || Number.isNaN(paidAt)) {
      throw new Error(`succeeded payment ${payment.id} lacks its tx, amount or time`);
    }
    const optionAmount: Amount = { unit: paid.unit, value: paid.value, display: assetDisplay(deps.chains, paid.unit) };
    info = { txId, optionAmount, paidAt: Math.floor(paidAt / 1000) };
  }
  return {
    status: payment.status,
    isFinal: final,
    pollInMs: final ? null : POLL_IN_MS,
    info,
    failureCode: failureCodeOf(payment),
  };
}

export interface LongPoll {
  /** How long to hold the request for a final status (0: answer at once). Wall time, not the business clock. */
  maxPollMs: number;
  /** Aborted when the client goes away or the request times out: stop reading for nobody. */
  signal: AbortSignal;
  notifier: PaymentNotifier;
  /** Re-read period, for changes made by other processes, which the notifier cannot see. */
  pollIntervalMs?: number;
  /** Milliseconds, monotonic enough for a deadline; injectable like every clock. */
  wallNow?: () => number;
}

export const DEFAULT_POLL_INTERVAL_MS = 500;

/**
 * The payment once it is final, or as it is when `maxPollMs` runs out (the contract's `maxPollMs`: a change to a
 * status that is not final, such as `processing`, does not end the wait). Each wake re-reads the row, which also
 * applies expiry, so a payment passing `expiresAt` during the wait ends it as `expired`.
 */
export async function waitForFinalStatus(
  deps: BuyerPaymentDeps,
  scope: GatewayScope,
  id: string,
  poll: LongPoll,
): Promise<PaymentRow> {
  const now = poll.wallNow ?? (() => performance.now());
  const interval = poll.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = now() + poll.maxPollMs;
  let payment = await readBuyerPayment(deps, scope, id);
  while (!isFinal(payment.status) && !poll.signal.aborted) {
    const remaining = deadline - now();
    if (remaining <= 0) break;
    await poll.notifier.wait(id, Math.min(interval, remaining), poll.signal);
    if (poll.signal.aborted) break;
    payment = await readBuyerPayment(deps, scope, id);
  }
  return payment;
}

/**
 * The buyer declines: only from `requires_action`; a cancelled payment answers again unchanged (no version, no
 * event), anything else is `invalid_state`. Expiry first, so a payment past its deadline is expired, not cancelled.
 * Once a deposit transfer has arrived, refused with `invalid_state` (§26.2): part of the money is already with Paygate.
 */
export async function cancelBuyerPayment(
  deps: BuyerPaymentDeps,
  scope: GatewayScope,
  id: string,
): Promise<GatewayCancelResponse> {
  await readBuyerPayment(deps, scope, id);
  const { payment } = await deps.db.knex.transaction(async (trx) => {
    // Under the payment's row lock, so a scan crediting the payment and this cancel see each other (§26.2).
    const locked = await findPayment(trx, id, { forUpdate: true });
    if (locked?.status === 'requires_action' && (await receivedTransfers(trx, id)) > 0) {
      throw new ApiError(
        'invalid_state',
        'Money has already been received for this payment; it cannot be cancelled. Pay the rest, or ask the merchant for a refund.',
      );
    }
    return transitionPayment(
      deps,
      id,
      {
        to: 'cancelled',
        from: ['requires_action'],
        stages: { cancelled: { cancelled_at: iso(deps.now()), cancelled_by: 'buyer', cancellation_reason: null } },
      },
      trx,
    );
  });
  return cancelAnswer(payment);
}

/** Paygate's status answer and WalletConnect Pay's cancel answer in one object (§28): wallets of both read theirs. */
function cancelAnswer(payment: PaymentRow): GatewayCancelResponse {
  const cancelled = payment.stages.cancelled;
  if (payment.status !== 'cancelled' || typeof cancelled?.cancelled_at !== 'string') {
    throw new Error(`payment ${payment.id} answered a cancel without its cancellation`);
  }
  return {
    status: 'cancelled',
    isFinal: true,
    pollInMs: null,
    info: null,
    failureCode: null,
    paymentId: payment.id,
    cancelledReason: cancelledReason(cancelled.cancelled_by),
    cancelledAt: cancelled.cancelled_at,
  };
}
