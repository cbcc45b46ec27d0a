/**
 * On-chain refunds, the request side (docs/decisions.md §22.6): the merchant asks for a refund of a payment settled in
 * collected mode, out of their unpaid balance; it goes to the paying wallet's account, or waits for the buyer to
 * enter an address through a one-time claim link. The move executor sends `planned` rows; this module writes them.
 *
 * Whose is the paying address? A payment confirmed by a wallet was paid by the account that signed (its claim's
 * account): the buyer's own. A plain transfer to a deposit address may come from an exchange's hot wallet, which
 * would not credit the buyer, so those refunds always go through a claim link.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { accountRules, forNamespaceOf } from '../chains/adapters.js';
import { findClaimOfPayment } from '../db/queries/claims.js';
import { listLedgerEntries } from '../db/queries/ledgerEntries.js';
import type { RefundedStage } from '../db/queries/paymentStages.js';
import {
  claimOnchainRefund,
  findRefundByClaimHash,
  insertOnchainRefund,
  lockMerchantBalance,
  refundsOfPayment,
  type OnchainRefundRow,
} from '../db/queries/refundRequests.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { newId } from '../ids.js';
import { recordStage, type LifecycleDeps } from '../payments/lifecycle.js';
import { readPayment, refundMerchantPayment, type MerchantScope } from '../payments/merchantPayments.js';
import { iso, toSnapshot, type PaymentSnapshot } from '../payments/snapshot.js';
import { insertLedgerEntries, unpaidBalances } from './ledger.js';
import { enqueueMove } from './moveJobs.js';

/** How long a claim link can be used: long enough for a buyer who reads mail weekly, short enough to end a liability. */
export const CLAIM_TTL_MS = 30 * 86_400_000;

export type OnchainRefund = components['schemas']['OnchainRefund'];
export type RefundAnswer = components['schemas']['RefundPaymentResponse'];

export interface RefundDeps extends LifecycleDeps {
  config: { publicBaseUrl: string };
}

export const hashClaimToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export function refundJson(row: OnchainRefundRow): OnchainRefund {
  return {
    refund_id: row.id,
    amount: { unit: `caip19/${row.asset_caip19}`, value: row.amount },
    chain_caip2: row.chain_caip2,
    state: row.state,
    destination: row.destination,
    tx_id: row.tx_id,
    claim_expires_at: row.claim_expires_at === null ? null : iso(row.claim_expires_at),
    created_at: iso(row.created_at),
  };
}

/**
 * `refundPayment`: an on-chain refund for a payment settled in collected mode (one with a `payable` ledger entry:
 * its money is in the operator's hands), otherwise the off-platform record of payments/merchantPayments.ts.
 */
export async function refundPayment(
  deps: RefundDeps,
  scope: MerchantScope,
  id: string,
  body: { amount?: string; reason?: string },
): Promise<RefundAnswer> {
  await readPayment(deps, scope, id);
  const [payable] = await listLedgerEntries(deps.db.knex, { paymentId: id, kinds: ['payable'] });
  if (!payable) {
    if (body.amount !== undefined)
      throw new ApiError(
        'params_validation',
        `Payment ${id} did not settle in collected mode: Paygate holds none of its funds, so a refund records one you made yourself and takes no amount.`,
        { param: 'amount' },
      );
    return refundMerchantPayment(deps, scope, id, body.reason);
  }

  let created: OnchainRefundRow | null = null;
  let token: string | null = null;
  const { payment } = await recordStage(deps, id, 'refunded', async (p, now, trx): Promise<RefundedStage> => {
    if (p.status !== 'succeeded')
      throw new ApiError(
        'payment_not_succeeded',
        `Payment ${id} is ${p.status}; only a succeeded payment can be refunded.`,
      );
    await lockMerchantBalance(trx, p.merchant_id);
    const amount = await refundableAmount(trx, p.id, payable.amount, body.amount);
    const [unpaid] = await unpaidBalances(trx, {
      merchantId: p.merchant_id,
      live: p.live,
      chain: payable.chain,
      asset: payable.asset,
    });
    const balance = unpaid?.amount ?? 0n;
    if (amount > balance)
      throw new ApiError(
        'invalid_state',
        `Refund of ${amount} exceeds the merchant's unpaid balance of ${balance} on ${payable.chain} in ${payable.asset}; what was paid out cannot be refunded from here.`,
      );

    const destination = await payingWallet(trx, p.id, payable.chain);
    token = destination === null ? randomBytes(32).toString('base64url') : null;
    created = {
      id: newId.refund(),
      payment_id: p.id,
      merchant_id: p.merchant_id,
      chain_caip2: payable.chain,
      asset_caip19: payable.asset,
      amount: amount.toString(),
      destination,
      claim_token_hash: token === null ? null : hashClaimToken(token),
      claim_expires_at: token === null ? null : now + CLAIM_TTL_MS,
      reason: body.reason ?? null,
      state: destination === null ? 'awaiting_claim' : 'planned',
      tx_id: null,
      details: '{}',
      created_at: now,
      updated_at: now,
    };
    await insertOnchainRefund(trx, created);
    // A known destination: the executor sends it now. A claim link's refund gets its job when the buyer claims it.
    if (destination !== null) await enqueueMove(trx, deps.jobs, 'refund', created.id);
    // Written now, not when sent: the unpaid balance drops at once, so neither a payout nor a second refund can
    // spend money promised to this buyer (reconciliation counts the refund against the collection only once sent).
    await insertLedgerEntries(trx, [
      {
        entryKey: `refunded:${created.id}`,
        kind: 'refunded',
        merchantId: p.merchant_id,
        live: p.live,
        mode: 'collected',
        chain: payable.chain,
        asset: payable.asset,
        amount,
        address: destination,
        paymentId: p.id,
        refundId: created.id,
        createdAt: now,
      },
    ]);
    return stageOf(p.stages.refunded, await refundsOfPayment(trx, p.id), now, body.reason);
  });
  const row = created as OnchainRefundRow | null;
  if (!row) throw new Error(`refund of ${id} was not created`);
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  return {
    ...toSnapshot(payment),
    refund: { ...refundJson(row), claim_url: token === null ? null : `${base}/refund#${token as string}` },
  };
}

/** What is left to refund of the payment's payable amount, checked against what was asked. */
async function refundableAmount(
  trx: Knex.Transaction,
  paymentId: string,
  payable: bigint,
  asked: string | undefined,
): Promise<bigint> {
  const refunded = (await listLedgerEntries(trx, { paymentId, kinds: ['refunded'] })).reduce(
    (a, e) => a + e.amount,
    0n,
  );
  const left = payable - refunded;
  if (left <= 0n) throw new ApiError('already_refunded', `Payment ${paymentId} is refunded in full already.`);
  if (asked === undefined) return left;
  const amount = BigInt(asked);
  if (amount > left)
    throw new ApiError(
      'params_validation',
      `amount ${amount} exceeds the ${left} left to refund of payment ${paymentId} (its settlement amount less earlier refunds).`,
      { param: 'amount' },
    );
  return amount;
}

/** The account that signed a wallet's confirm of the payment, on the refund's chain; null for a plain transfer. */
async function payingWallet(trx: Knex.Transaction, paymentId: string, chain: string): Promise<string | null> {
  const claim = await findClaimOfPayment(trx, paymentId);
  if (!claim || claim.chain !== chain || !claim.account.startsWith(`${chain}:`)) return null;
  return claim.account.slice(chain.length + 1);
}

function stageOf(
  previous: RefundedStage | null,
  refunds: OnchainRefundRow[],
  now: number,
  reason: string | undefined,
): RefundedStage {
  return {
    refunded_at: previous?.refunded_at ?? iso(now),
    reason: reason ?? previous?.reason ?? null,
    refunds: refunds.map(refundJson),
  };
}

/**
 * Rewrites the payment's `refunded.refunds` from its rows: the move executor calls it after a refund's state or
 * transaction changes, so the snapshot carries the transaction once sent. Idempotent; sends no event (§1.2).
 */
export async function syncRefundedStage(
  deps: LifecycleDeps,
  paymentId: string,
  /** The executor's transaction, so the record changes with the refund row's state (settlement/moves.ts). */
  outer?: Knex.Transaction,
): Promise<PaymentSnapshot> {
  const { payment } = await recordStage(
    deps,
    paymentId,
    'refunded',
    async (p, now, trx) => stageOf(p.stages.refunded, await refundsOfPayment(trx, paymentId), now, undefined),
    outer,
  );
  return toSnapshot(payment);
}

export type RefundClaim = {
  refundId: string;
  chain: string;
  asset: string;
  amount: string;
  state: OnchainRefundRow['state'];
  destination: string | null;
  claimExpiresAt: number;
};

const UNUSABLE =
  'This refund link is not valid; it may have expired or been used already. Ask the merchant for a new one.';

/** The refund a claim link names while it can still be used; one answer for unknown, used and expired links. */
async function usableClaim(deps: LifecycleDeps, token: string): Promise<OnchainRefundRow> {
  const row = await findRefundByClaimHash(deps.db.knex, hashClaimToken(token));
  if (!row || row.state !== 'awaiting_claim' || row.claim_expires_at === null || deps.now() >= row.claim_expires_at)
    throw new ApiError('invalid_params', UNUSABLE, { status: 404 });
  return row;
}

function claimOf(row: OnchainRefundRow): RefundClaim {
  return {
    refundId: row.id,
    chain: row.chain_caip2,
    asset: row.asset_caip19,
    amount: row.amount,
    state: row.state,
    destination: row.destination,
    claimExpiresAt: Math.floor(row.claim_expires_at! / 1000),
  };
}

export async function lookupRefundClaim(deps: LifecycleDeps, token: string): Promise<RefundClaim> {
  return claimOf(await usableClaim(deps, token));
}

/**
 * The buyer's address for an awaiting refund: checked by the chain's own account rules, then the refund is planned
 * (the link is used up) and the payment's stage shows it, in one transaction.
 */
export async function claimRefund(deps: LifecycleDeps, token: string, address: string): Promise<RefundClaim> {
  const row = await usableClaim(deps, token);
  const rules = forNamespaceOf(accountRules, row.chain_caip2);
  const canonical = rules?.normaliseAccount(`${row.chain_caip2}:${address.trim()}`) ?? null;
  if (canonical === null || !canonical.startsWith(`${row.chain_caip2}:`))
    throw new ApiError(
      'params_validation',
      `The refund is sent on ${row.chain_caip2}: enter an address of that chain (${rules?.addressForm ?? 'its address form'}).`,
      { param: 'address' },
    );
  const destination = canonical.slice(row.chain_caip2.length + 1);
  await recordStage(deps, row.payment_id, 'refunded', async (p, now, trx) => {
    if (!(await claimOnchainRefund(trx, row.id, { destination, now })))
      throw new ApiError('invalid_params', UNUSABLE, { status: 404 });
    await enqueueMove(trx, deps.jobs, 'refund', row.id);
    return stageOf(p.stages.refunded, await refundsOfPayment(trx, row.payment_id), now, undefined);
  });
  return { ...claimOf(row), state: 'planned', destination };
}
