/**
 * On-chain refunds, the request side (docs/decisions.md §22.6, §22.12): the merchant asks for a refund of a payment
 * settled in collected mode, out of that payment's own money still with Paygate (never paid out, never in a payout
 * planned or sent) and within their unpaid balance, or out of its excess (what the buyer sent beyond it); it goes to
 * the paying wallet's account, or waits for the buyer to enter an address through a one-time claim link. The move
 * executor sends `planned` rows; this module writes them.
 *
 * Whose is the paying address? A payment confirmed by a wallet was paid by the account that signed (its claim's
 * account): the buyer's own. A plain transfer to a deposit address may come from an exchange's hot wallet, which
 * would not credit the buyer, so those refunds always go through a claim link.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { accountRules, forNamespaceOf } from '../chains/adapters.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { findClaimOfPayment } from '../db/queries/claims.js';
import { findIdempotencyKey, insertAnsweredKeys } from '../db/queries/idempotencyKeys.js';
import { listLedgerEntries, type LedgerEntry } from '../db/queries/ledgerEntries.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { payoutOfPayment } from '../db/queries/payoutRows.js';
import type { RefundedStage } from '../db/queries/paymentStages.js';
import {
  claimOnchainRefund,
  endAwaitingRefund as endAwaitingRow,
  findOnchainRefund,
  findRefundByClaimHash,
  overdueClaims,
  insertOnchainRefund,
  lockMerchantBalance,
  refundsOfPayment,
  type OnchainRefundRow,
  type RefundSource,
} from '../db/queries/refundRequests.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/merchant.js';
import { newId } from '../ids.js';
import { withIdempotencyKey, type IdempotencyDeps, type IdempotentAnswer } from '../payments/idempotency.js';
import { recordStage, type LifecycleDeps } from '../payments/lifecycle.js';
import { readPayment, refundMerchantPayment, type MerchantScope } from '../payments/merchantPayments.js';
import { iso, toSnapshot, type PaymentSnapshot } from '../payments/snapshot.js';
import { excessLeft } from './excess.js';
import { insertLedgerEntries, unpaidBalances } from './ledger.js';
import { enqueueMove } from './moveJobs.js';
import {
  chargeRefundNetworkFee,
  checkExcessRefundPolicy,
  checkRefundPolicy,
  OPERATOR,
  releaseRefundNetworkFee,
  type RefundActor,
  type RefundPolicyDeps,
} from './refundPolicy.js';

/** How long a claim link can be used: long enough for a buyer who reads mail weekly, short enough to end a liability. */
export const CLAIM_TTL_MS = 30 * 86_400_000;

export type OnchainRefund = components['schemas']['OnchainRefund'];
export type RefundAnswer = components['schemas']['RefundPaymentResponse'];

export interface RefundDeps extends LifecycleDeps, RefundPolicyDeps, IdempotencyDeps {
  config: { publicBaseUrl: string } & RefundPolicyDeps['config'];
  /** Seals a claim link inside a stored idempotent answer. */
  secretBox: SecretBox;
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
    ...(row.network_fee == null ? {} : { network_fee: { unit: `caip19/${row.asset_caip19}`, value: row.network_fee } }),
  };
}

/**
 * The dashboard records refunds the merchant made off-platform, and only those. A payment of collected settlement
 * (its `payable` entry exists) was paid to the operator: its money is with Paygate, so recording a refund the merchant
 * did not send would leave the buyer unpaid while the books say refunded. Refused with the way to send it.
 */
export async function refuseOffPlatformRefundOfCollected(
  deps: LifecycleDeps,
  scope: MerchantScope,
  id: string,
): Promise<void> {
  // The scope first: another merchant's payment is 404 whatever its settlement.
  await readPayment(deps, scope, id);
  const [payable] = await listLedgerEntries(deps.db.knex, { paymentId: id, kinds: ['payable'] });
  if (payable)
    throw new ApiError(
      'invalid_state',
      `Payment ${id} was paid to the operator (collected settlement), so Paygate holds its funds: refund it with the merchant API's refundPayment, which sends the money back on chain. The dashboard records only refunds you made yourself.`,
    );
}

/**
 * `refundPayment`: an on-chain refund for a payment settled in collected mode (one with a `payable` ledger entry:
 * its money is in the operator's hands), otherwise the off-platform record of payments/merchantPayments.ts. With an
 * `Idempotency-Key`, at most once per key (createPayment's mechanism, payments/idempotency.ts): the key is stored
 * with its answer in the refund's own transaction, so a retry replays the first answer and moves no more money.
 */
export async function refundPayment(
  deps: RefundDeps,
  scope: MerchantScope,
  id: string,
  body: RefundBody,
  idempotencyKey?: string,
  /** Who asks (settlement/refundPolicy.ts): the merchant API's key; the server's own code when absent. */
  actor: RefundActor = OPERATOR,
): Promise<IdempotentAnswer<RefundAnswer>> {
  // Outside the refund's transaction: expiry writes in a transaction of its own (SQLite has one connection).
  await readPayment(deps, scope, id);
  const [payable] = await listLedgerEntries(deps.db.knex, { paymentId: id, kinds: ['payable'] });
  const once = async (trx: Knex.Transaction): Promise<Made> => {
    if (body.source === 'excess') return excessRefund(deps, trx, scope, id, body, payable !== undefined, actor);
    if (payable) return onchainRefund(deps, trx, id, payable, body, actor);
    if (body.amount !== undefined)
      throw new ApiError(
        'params_validation',
        `Payment ${id} did not settle in collected mode: Paygate holds none of its funds, so a refund records one you made yourself and takes no amount.`,
        { param: 'amount' },
      );
    return { answer: await refundMerchantPayment(deps, scope, id, body.reason, trx) };
  };
  if (idempotencyKey === undefined) {
    const made = await deps.db.knex.transaction(once);
    return { status: 200, body: made.answer, replayed: false };
  }
  const replayed = await withIdempotencyKey<RefundAnswer>(
    deps,
    { ...scope, key: idempotencyKey },
    // The operation and the payment are part of what the key names: the same key on another payment, or a key
    // first used to create a payment, is another request (idempotency_conflict).
    { operation: 'refundPayment', paymentId: id, body },
    async (claim) => {
      try {
        return await deps.db.knex.transaction(async (trx) => {
          // The merchant's balance lock before the payment's row lock, the order every refund and payout planning
          // takes them in (onchainRefund).
          await lockMerchantBalance(trx, scope.merchantId);
          // Then the payment's row lock: a concurrent request with this key waits here for ours to commit, then
          // finds the key and replays our answer rather than refunding again or answering already_refunded.
          await findPayment(trx, id, { forUpdate: true });
          if (await findIdempotencyKey(trx, claim.scope)) throw KEY_TAKEN;
          const made = await once(trx);
          const [inserted] = await insertAnsweredKeys(trx, [
            {
              ...claim.scope,
              request_hash: claim.requestHash,
              created_at: claim.createdAt,
              response_status: 200,
              response_body: JSON.stringify(storedAnswer(deps, made)),
            },
          ]);
          // Another payment's refund took the key meanwhile: ours rolls back, and the key's owner answers.
          if (!inserted) throw KEY_TAKEN;
          return { status: 200, body: made.answer };
        });
      } catch (err) {
        if (err === KEY_TAKEN) return null;
        throw err;
      }
    },
  );
  return replayed.replayed ? { ...replayed, body: await openedAnswer(deps, replayed.body) } : replayed;
}

type RefundBody = { amount?: string; reason?: string; source?: RefundSource };
interface Made {
  answer: RefundAnswer;
}
const KEY_TAKEN = new Error('idempotency key taken');

/**
 * The answer kept with the key. The claim link is a bearer capability whose token is otherwise stored nowhere (only
 * its hash), so the stored answer holds it sealed (crypto/secretBox.ts), bound to the refund's id.
 */
function storedAnswer(deps: RefundDeps, made: Made): RefundAnswer {
  // The buyer is personal data sealed on the payment (§30.3): the stored answer keeps none, a replay reads it back.
  const answer = made.answer.buyer ? { ...made.answer, buyer: null } : made.answer;
  const refund = answer.refund;
  if (!refund?.claim_url) return answer;
  return { ...answer, refund: { ...refund, claim_url: deps.secretBox.seal(refund.claim_url, refund.refund_id) } };
}

async function openedAnswer(deps: RefundDeps, stored: RefundAnswer): Promise<RefundAnswer> {
  const payment = await findPayment(deps.db.knex, stored.payment_id);
  const withBuyer = payment?.buyer_sealed ? { ...stored, buyer: toSnapshot(payment, deps.secretBox).buyer } : stored;
  const refund = withBuyer.refund;
  if (!refund?.claim_url) return withBuyer;
  return { ...withBuyer, refund: { ...refund, claim_url: deps.secretBox.open(refund.claim_url, refund.refund_id) } };
}

async function onchainRefund(
  deps: RefundDeps,
  trx: Knex.Transaction,
  id: string,
  payable: LedgerEntry,
  body: RefundBody,
  actor: RefundActor,
): Promise<Made> {
  let created: OnchainRefundRow | null = null;
  let token: string | null = null;
  // The merchant's balance lock before the payment's row lock (recordStage takes it): payout planning holds the
  // former while its payout items reference the payment (a key-share lock on PostgreSQL), so the other order would
  // deadlock a refund against a plan.
  await lockMerchantBalance(trx, payable.merchantId);
  const { payment } = await recordStage(
    deps,
    id,
    'refunded',
    async (p, now): Promise<RefundedStage> => {
      if (p.status !== 'succeeded')
        throw new ApiError(
          'payment_not_succeeded',
          `Payment ${id} is ${p.status}; only a succeeded payment can be refunded.`,
        );
      const refundable = await refundableAmount(trx, p.id, payable.amount, body.amount);
      const [unpaid] = await unpaidBalances(trx, {
        merchantId: p.merchant_id,
        live: p.live,
        chain: payable.chain,
        asset: payable.asset,
      });
      // Checked against the refund and its network fee by the policy below (409 invalid_state beyond it).
      const balance = unpaid?.amount ?? 0n;

      const destination = await payingWallet(trx, p.id, payable.chain);
      const { amount, networkFee } = await checkRefundPolicy(deps, trx, {
        paymentId: p.id,
        chain: payable.chain,
        asset: payable.asset,
        ...refundable,
        asked: body.amount !== undefined,
        balance,
        destination,
        actor,
      });
      ({ row: created, token } = await insertRefund(deps, trx, p, now, {
        source: 'payment',
        chain: payable.chain,
        asset: payable.asset,
        amount,
        destination,
        networkFee,
        reason: body.reason,
      }));
      await chargeRefundNetworkFee(trx, created, p.live, networkFee, now);
      return stageOf(p.stages.refunded, await refundsOfPayment(trx, p.id), now, body.reason);
    },
    trx,
  );
  return answerOf(deps, payment, created as OnchainRefundRow | null, token as string | null);
}

function answerOf(deps: RefundDeps, payment: PaymentRow, row: OnchainRefundRow | null, link: string | null): Made {
  if (!row) throw new Error(`refund of ${payment.id} was not created`);
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  return {
    answer: {
      ...toSnapshot(payment, deps.secretBox),
      refund: { ...refundJson(row), claim_url: link === null ? null : `${base}/refund#${link}` },
    },
  };
}

/**
 * `refundPayment` with `source: 'excess'`: a refund of what the buyer sent beyond what the payment took (excess.ts),
 * from that excess itself, never from the merchant's unpaid balance, whatever the payment's status (a late payment's
 * payment expired). To the paying wallet when a wallet's confirm named it, otherwise by claim link, as any refund.
 */
async function excessRefund(
  deps: RefundDeps,
  trx: Knex.Transaction,
  scope: MerchantScope,
  id: string,
  body: RefundBody,
  collected: boolean,
  actor: RefundActor,
): Promise<Made> {
  let created: OnchainRefundRow | null = null;
  let token: string | null = null;
  await lockMerchantBalance(trx, scope.merchantId);
  const { payment } = await recordStage(
    deps,
    id,
    'refunded',
    async (p, now): Promise<RefundedStage> => {
      const held = await excessLeft(trx, p.id);
      if (held.length === 0 && !collected)
        throw new ApiError(
          'params_validation',
          `Payment ${id} did not settle in collected mode: Paygate holds none of its funds, so there is no excess to refund.`,
          { param: 'source' },
        );
      const left = held.find((h) => h.amount > 0n);
      if (!left)
        throw new ApiError(
          'invalid_state',
          `Payment ${id} has no excess left to refund: nothing arrived beyond what it took, or it was refunded already.`,
        );
      const amount = body.amount === undefined ? left.amount : BigInt(body.amount);
      if (amount > left.amount)
        throw new ApiError(
          'params_validation',
          `amount ${amount} exceeds the ${left.amount} of excess left to refund of payment ${id} on ${left.chain} in ${left.asset}.`,
          { param: 'amount' },
        );
      const destination = await payingWallet(trx, p.id, left.chain);
      await checkExcessRefundPolicy(deps, trx, {
        paymentId: p.id,
        chain: left.chain,
        asset: left.asset,
        amount,
        asked: body.amount !== undefined,
        destination,
        actor,
      });
      ({ row: created, token } = await insertRefund(deps, trx, p, now, {
        source: 'excess',
        chain: left.chain,
        asset: left.asset,
        amount,
        destination,
        reason: body.reason,
      }));
      return stageOf(p.stages.refunded, await refundsOfPayment(trx, p.id), now, body.reason);
    },
    trx,
  );
  return answerOf(deps, payment, created as OnchainRefundRow | null, token as string | null);
}

/**
 * Writes an on-chain refund and what must go with it, in the refund's transaction: its row (a claim link's token hash
 * when there is no known destination), its job when the destination is known (a claim link's refund gets its job when
 * the buyer claims it), and its reservation, written now rather than when sent so that neither a payout nor a second
 * refund can spend money promised to this buyer (reconciliation counts it against the collection only once sent).
 */
async function insertRefund(
  deps: RefundDeps,
  trx: Knex.Transaction,
  p: PaymentRow,
  now: number,
  r: {
    source: OnchainRefundRow['source'];
    chain: string;
    asset: string;
    amount: bigint;
    destination: string | null;
    networkFee?: bigint;
    reason: string | undefined;
  },
): Promise<{ row: OnchainRefundRow; token: string | null }> {
  const token = r.destination === null ? randomBytes(32).toString('base64url') : null;
  const row: OnchainRefundRow = {
    id: newId.refund(),
    source: r.source,
    payment_id: p.id,
    merchant_id: p.merchant_id,
    chain_caip2: r.chain,
    asset_caip19: r.asset,
    amount: r.amount.toString(),
    destination: r.destination,
    claim_token_hash: token === null ? null : hashClaimToken(token),
    claim_expires_at: token === null ? null : now + CLAIM_TTL_MS,
    reason: r.reason ?? null,
    state: r.destination === null ? 'awaiting_claim' : 'planned',
    tx_id: null,
    ...(r.networkFee === undefined ? {} : { network_fee: r.networkFee.toString() }),
    details: '{}',
    created_at: now,
    updated_at: now,
  };
  await insertOnchainRefund(trx, row);
  if (r.destination !== null) await enqueueMove(trx, deps.jobs, 'refund', row.id);
  await insertLedgerEntries(trx, [refundReserved(row, p.live, now)]);
  return { row, token };
}

type Source = Pick<OnchainRefundRow, 'source'>;
/** The ledger kind a refund reserves its amount with: the merchant's balance, or the payment's excess. */
const reservedKind = (r: Source) => (r.source === 'excess' ? 'excess_refunded' : 'refunded');
const releasedKind = (r: Source) => (r.source === 'excess' ? 'excess_released' : 'refund_released');

/**
 * A refund's reserving entry, written when it is asked for, not when sent: the balance it draws on drops at once, so
 * neither a payout nor a second refund can spend money promised to this buyer (reconciliation counts it against the
 * collection account only once sent). The move's completion writes the same key again (moves.ts), which adds nothing.
 */
export function refundReserved(
  refund: Pick<
    OnchainRefundRow,
    'id' | 'source' | 'merchant_id' | 'payment_id' | 'chain_caip2' | 'asset_caip19' | 'amount' | 'destination'
  >,
  live: boolean,
  now: number,
  sent: { txId: string; address: string } | null = null,
): LedgerEntry {
  const kind = reservedKind(refund);
  return {
    entryKey: `${kind}:${refund.id}`,
    kind,
    merchantId: refund.merchant_id,
    live,
    mode: 'collected',
    chain: refund.chain_caip2,
    asset: refund.asset_caip19,
    amount: BigInt(refund.amount),
    address: sent?.address ?? refund.destination,
    paymentId: refund.payment_id,
    refundId: refund.id,
    txId: sent?.txId ?? null,
    createdAt: now,
  };
}

/**
 * What is left to refund of the payment's own money still with Paygate (docs/decisions.md §22.12), checked against
 * what was asked: its payable less its refunds (released ones given back) less what a payout took. A payment's money
 * is in one outgoing move at a time, so a payment in a payout that is planned or sent is refused outright (its money
 * is on its way to the merchant; if that payout fails it is refundable again), and one paid out has only what the
 * payout left, which is nothing. Never the merchant's other payments: the collection account is shared by every
 * merchant, and money paid out is the merchant's own to return. Called under the merchant's balance lock, which
 * payout planning takes too.
 */
async function refundableAmount(
  trx: Knex.Transaction,
  paymentId: string,
  payable: bigint,
  asked: string | undefined,
): Promise<{ amount: bigint; left: bigint }> {
  const payout = await payoutOfPayment(trx, paymentId);
  if (payout && payout.state !== 'final')
    throw new ApiError(
      'invalid_state',
      `Payment ${paymentId} is being paid out in payout ${payout.id} (${payout.state}): its money is on its way to your payout address and cannot also be refunded. If that payout fails, the payment can be refunded again; once it is final, the money is yours and a refund is yours to send.`,
    );
  const refunded = await netRefunded(trx, paymentId);
  // A payout covers what was left of the payment when planned (less refunds and their network fees): once one is
  // final, nothing of the payment is with Paygate any more.
  const left = payable - refunded - (payout?.net ?? 0n);
  if (payout)
    throw new ApiError(
      'invalid_state',
      `Payment ${paymentId} was paid out in payout ${payout.id}: Paygate holds none of its money any more, so it cannot be refunded from here; a refund is yours to send.`,
    );
  if (left <= 0n) throw new ApiError('already_refunded', `Payment ${paymentId} is refunded in full already.`);
  if (asked === undefined) return { amount: left, left };
  const amount = BigInt(asked);
  if (amount > left)
    throw new ApiError(
      'params_validation',
      `amount ${amount} exceeds the ${left} left to refund of payment ${paymentId} (its settlement amount less earlier refunds${payout ? ' and its payout' : ''}).`,
      { param: 'amount' },
    );
  return { amount, left };
}

/** What the payment's refunds took of its own money: released reservations (ended claim links, failed sends) are
 * refundable again, so they count back. */
export async function netRefunded(db: Knex, paymentId: string): Promise<bigint> {
  return (await listLedgerEntries(db, { paymentId, kinds: ['refunded', 'refund_released'] })).reduce(
    (a, e) => a + (e.kind === 'refunded' ? e.amount : -e.amount),
    0n,
  );
}

/** The account that signed a wallet's confirm of the payment, on the refund's chain; null for a plain transfer. */
export async function payingWallet(
  trx: Knex | Knex.Transaction,
  paymentId: string,
  chain: string,
): Promise<string | null> {
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
  return toSnapshot(payment, deps.secretBox);
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

/**
 * The refund a claim link names while it can still be used. An unknown token gets the one generic answer; the holder
 * of a real link (the capability) is told plainly why it ended.
 */
async function usableClaim(deps: LifecycleDeps, token: string): Promise<OnchainRefundRow> {
  const row = await findRefundByClaimHash(deps.db.knex, hashClaimToken(token));
  if (!row || row.claim_expires_at === null) throw new ApiError('invalid_params', UNUSABLE, { status: 404 });
  if (row.state === 'expired' || (row.state === 'awaiting_claim' && deps.now() >= row.claim_expires_at))
    throw new ApiError(
      'invalid_params',
      `This refund link expired on ${iso(row.claim_expires_at)}; the refund was not sent. Ask the merchant for a new one.`,
      { status: 404 },
    );
  if (row.state === 'cancelled')
    throw new ApiError(
      'invalid_params',
      'The merchant cancelled this refund link; the refund was not sent. Ask the merchant about it.',
      { status: 404 },
    );
  if (row.state !== 'awaiting_claim')
    throw new ApiError('invalid_params', 'This refund link was used already: an address was entered for it.', {
      status: 404,
    });
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

/**
 * Ends an awaiting refund that will never be sent, its claim link expired or cancelled, and gives its reservation
 * back to the merchant's unpaid balance: the row's state and the compensating `refund_released` entry in one
 * transaction, once (the state update names the state it expects; the entry key is the refund's). Answers whether
 * this call ended it.
 */
export async function endAwaitingRefund(
  deps: LifecycleDeps,
  row: Pick<OnchainRefundRow, 'id' | 'payment_id'>,
  state: 'expired' | 'cancelled',
): Promise<boolean> {
  const { changed } = await recordStage(deps, row.payment_id, 'refunded', async (p, now, trx) => {
    if (!(await endAwaitingRow(trx, row.id, { state, now }))) return null;
    const refund = await findOnchainRefund(trx, row.id);
    if (!refund) throw new Error(`refund ${row.id} vanished while ending it`);
    await insertLedgerEntries(trx, [refundReleased(refund, p.live, now)]);
    await releaseRefundNetworkFee(trx, refund, p.live, now);
    return stageOf(p.stages.refunded, await refundsOfPayment(trx, row.payment_id), now, undefined);
  });
  return changed;
}

/**
 * The compensating entry of a refund that will never be sent (its link ended, or its move failed): its reservation
 * back in the merchant's balance, once (the key is the refund's).
 */
export function refundReleased(
  refund: Pick<
    OnchainRefundRow,
    'id' | 'source' | 'merchant_id' | 'payment_id' | 'chain_caip2' | 'asset_caip19' | 'amount'
  >,
  live: boolean,
  now: number,
): LedgerEntry {
  const kind = releasedKind(refund);
  return {
    entryKey: `${kind}:${refund.id}`,
    kind,
    merchantId: refund.merchant_id,
    live,
    mode: 'collected',
    chain: refund.chain_caip2,
    asset: refund.asset_caip19,
    amount: BigInt(refund.amount),
    address: null,
    paymentId: refund.payment_id,
    refundId: refund.id,
    createdAt: now,
  };
}

/** Claim links ended per sweep; the rest wait for the next one. */
const EXPIRE_BATCH = 100;

/**
 * The sweep's part (runtime.sweep, beside expired payments): ends every awaiting refund whose claim link is past
 * its 30 days, giving its amount back. Answers how many this call ended.
 */
export async function expireRefundClaims(deps: LifecycleDeps): Promise<number> {
  let ended = 0;
  for (const row of await overdueClaims(deps.db.knex, deps.now(), EXPIRE_BATCH)) {
    if (await endAwaitingRefund(deps, row, 'expired')) ended++;
  }
  return ended;
}

/**
 * `cancelRefund`: the merchant withdraws an unclaimed link (it reached the wrong person, or the buyer was refunded
 * otherwise); the refund ends `cancelled` and its amount is back in the unpaid balance. Another merchant's or mode's
 * refund is answered like an unknown one; a refund not awaiting a claim is 409 invalid_state.
 */
export async function cancelRefundClaim(
  deps: LifecycleDeps,
  scope: MerchantScope,
  refundId: string,
): Promise<OnchainRefundRow> {
  const row = await findOnchainRefund(deps.db.knex, refundId);
  const payment = row && row.merchant_id === scope.merchantId ? await findPayment(deps.db.knex, row.payment_id) : null;
  if (!row || !payment || payment.live !== scope.live)
    throw new ApiError('invalid_params', `No refund with id ${refundId}.`, { status: 404 });
  if (!(await endAwaitingRefund(deps, row, 'cancelled'))) {
    const now = (await findOnchainRefund(deps.db.knex, refundId))?.state ?? row.state;
    throw new ApiError(
      'invalid_state',
      `Refund ${refundId} is ${now}, not awaiting a claim; only an unclaimed link can be cancelled.`,
    );
  }
  return (await findOnchainRefund(deps.db.knex, refundId))!;
}
