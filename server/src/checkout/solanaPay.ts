/**
 * Solana Pay transaction requests (docs/decisions.md §19). A wallet that scanned `solana:<link>` GETs the label,
 * POSTs its account and gets the payment's transaction, already signed by our fee payer; it signs and sends it
 * itself. The transaction is the option's, as confirm would rebuild it, so the watcher below finds it by the option's
 * reference, checks it with confirm's check and writes the claim with confirm's `recordClaim`; from `processing` on,
 * the payment follows the watch job like any confirmed Solana payment.
 */
import { createHash } from 'node:crypto';
import { hasCollectedData } from '../collect/index.js';
import type { ChainAdapter, TransactionRequests, VerifiedOption } from '../chains/adapter.js';
import { allChains, type ConfiguredChain } from '../chains/index.js';
import { findMerchant, type MerchantRow } from '../db/queries/accounts.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import {
  closeSolanaPayRequest,
  countOpenSolanaPayRequests,
  insertSolanaPayRequest,
  openSolanaPayRequests,
} from '../db/queries/solanaPayRequests.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { currencyOfUnit, decimalOf } from '../currencies.js';
import { expireIfOverdue } from '../payments/lifecycle.js';
import { iso } from '../payments/snapshot.js';
import { adapterFor, requireAdapter, type Checkout } from './context.js';
import { recordClaim, recordDiscrepancy } from './recordClaim.js';
import { verifyOption, verifyOptionUnder } from './optionToken.js';
import { paymentCollectData, pricedOptions, requirePayable } from './options.js';

type Label = components['schemas']['SolanaPayLabel'];
type TransactionAnswer = components['schemas']['SolanaPayTransaction'];

export const SOLANA_PAY_SEARCH_TASK = 'gateway.solanaPaySearch';
/** Between searches; a slot is ~400 ms, so a landed transfer is seen within about two seconds. */
export const SOLANA_PAY_SEARCH_EVERY_MS = 2_000;
/**
 * Transactions of one payment that may still land unseen (each is searched on every round until its blockhash has
 * expired, ~60–90 s). The operations take no credential, so this bounds what one payment id costs the watcher.
 */
export const MAX_OPEN_SOLANA_PAY_REQUESTS = 10;
/** The icon Solana Pay accepts: SVG, PNG or WebP, by an absolute HTTP(S) URL. */
const ACCEPTED_ICON = /^https?:\/\/[^\s]+\.(svg|png|webp)(\?[^\s]*)?$/i;
export const DEFAULT_ICON_PATH = '/v1/gateway/solana-pay/icon.svg';

/** The link to put after `solana:` (in a QR code or a button); `chain` only where several chains need naming. */
export function solanaPayLink(publicBaseUrl: string, paymentId: string, chain?: string): string {
  const base = `${publicBaseUrl.replace(/\/$/, '')}/v1/gateway/payment/${encodeURIComponent(paymentId)}/solana-pay`;
  return chain ? `${base}?chain=${encodeURIComponent(chain)}` : base;
}

/** Without a credential there is no mode to compare: the payment's own mode decides which chains serve it. */
async function payablePayment(checkout: Checkout, id: string): Promise<PaymentRow> {
  const found = await findPayment(checkout.db.knex, id);
  if (!found) throw new ApiError('payment_not_found', `No payment with id ${id}.`);
  const payment = await expireIfOverdue(checkout, found);
  requirePayable(checkout, payment);
  return payment;
}

async function merchantOf(checkout: Checkout, payment: PaymentRow): Promise<MerchantRow> {
  const merchant = await findMerchant(checkout.db.knex, payment.merchant_id);
  if (!merchant) throw new Error(`payment ${payment.id} names merchant ${payment.merchant_id}, which does not exist`);
  return merchant;
}

/** The chains that serve transaction requests, whichever namespace they belong to. */
function requestChains(checkout: Checkout): ConfiguredChain[] {
  return allChains(checkout.chains).filter((c) => c.transactionRequests);
}

/** The capability of the adapter of a chain that serves transaction requests (`requestChains`). */
function requestsOf(adapter: ChainAdapter): TransactionRequests {
  if (!adapter.transactionRequests) throw new Error(`the ${adapter.namespace} adapter serves no transaction requests`);
  return adapter.transactionRequests;
}

/** The Solana chain to pay on: the named one, or the only one serving the payment's mode and merchant. */
function chainFor(checkout: Checkout, payment: PaymentRow, merchant: MerchantRow, named?: string): ConfiguredChain {
  const mode = payment.live ? 'live' : 'test';
  const served = requestChains(checkout).filter(
    (c) => c.config.mode === mode && merchant.settlement_addresses[c.config.caip2] !== undefined,
  );
  if (named !== undefined) {
    const chain = served.find((c) => c.config.caip2 === named);
    if (!chain)
      throw new ApiError('params_validation', `This server serves no Solana chain ${named} for this payment.`);
    return chain;
  }
  if (served.length === 1) return served[0]!;
  if (served.length === 0) {
    throw new ApiError('params_validation', 'This server serves no Solana chain this payment can be paid on.');
  }
  throw new ApiError(
    'params_validation',
    `This server serves several Solana chains for this payment (${served.map((c) => c.config.caip2).join(', ')}); name one with ?chain=.`,
  );
}

function fiatOf(payment: PaymentRow): string {
  const currency = currencyOfUnit(payment.amount_unit);
  if (!currency) return `${payment.amount_value} ${payment.amount_unit}`;
  return `${decimalOf(BigInt(payment.amount_value), currency.digits)} ${currency.code}`;
}

export async function solanaPayLabel(checkout: Checkout, id: string, query: { chain?: string }): Promise<Label> {
  const payment = await payablePayment(checkout, id);
  const merchant = await merchantOf(checkout, payment);
  // Only a named chain is checked here: which chain pays, and whether one can, is the POST's question.
  if (query.chain !== undefined) chainFor(checkout, payment, merchant, query.chain);
  // The merchant's logo is a path on this server (§26.23); a wallet needs it absolute, and in a format it accepts.
  const base = checkout.config.publicBaseUrl.replace(/\/$/, '');
  const logo = merchant.icon_url?.startsWith('/') ? `${base}${merchant.icon_url}` : merchant.icon_url;
  const icon = logo && ACCEPTED_ICON.test(logo) ? logo : `${base}${DEFAULT_ICON_PATH}`;
  return { label: merchant.name, icon };
}

export async function solanaPayTransaction(
  checkout: Checkout,
  id: string,
  body: { account: string },
  query: { chain?: string },
): Promise<TransactionAnswer> {
  // A rule of the request, checked before the resource (docs/decisions.md §2).
  if (!checkout.adapters.some((a) => a.transactionRequests?.isAddress(body.account))) {
    throw new ApiError('params_validation', 'account is not a base58 Solana public key.');
  }
  const payment = await payablePayment(checkout, id);
  const merchant = await merchantOf(checkout, payment);
  const chain = chainFor(checkout, payment, merchant, query.chain);
  const account = `${chain.config.caip2}:${body.account}`;
  const collectData = await paymentCollectData(checkout, payment, merchant);
  if (collectData && !(await hasCollectedData(checkout.db.knex, payment.id))) {
    // A Solana Pay wallet cannot show the form; the buyer fills it in first (its URL is in the message).
    throw new ApiError(
      'invalid_state',
      `Payment ${id} needs the buyer's details before it can be paid: fill in ${collectData.url}, then scan again.`,
    );
  }
  // Refused without failing the payment: anyone who sees the QR can post any account, so this proves no ownership
  // (confirm, by contrast, holds the account's signature). No transaction is built for it, so none can land.
  if (checkout.screening.matches(account)) {
    throw new ApiError('sanctioned_user', 'This account cannot pay through this service.');
  }
  if ((await countOpenSolanaPayRequests(checkout.db.knex, id)) >= MAX_OPEN_SOLANA_PAY_REQUESTS) {
    throw new ApiError(
      'rate_limited',
      `Too many transactions were requested for payment ${id}; retry once the earlier ones have expired.`,
      { headers: { 'Retry-After': '60' } },
    );
  }
  const adapter = requireAdapter(checkout, chain.config.caip2);
  const { options, unavailable } = await pricedOptions(
    checkout,
    payment,
    merchant,
    new Map([[adapter, [account]]]),
    collectData,
  );
  const best = options[0];
  // An unreachable chain is not an empty wallet: the wallet should retry, not tell the buyer to top up (§27.9).
  if (!best && unavailable.length > 0) {
    throw new ApiError('internal_error', `${chain.config.caip2} is temporarily unavailable; retry in a moment.`, {
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  }
  if (!best) {
    const accepted = chain.config.assets.map((a) => a.symbol).join(', ');
    throw new ApiError(
      'params_validation',
      `Account ${body.account} holds no accepted asset on ${chain.config.caip2} to pay ${fiatOf(payment)} (accepted: ${accepted}).`,
    );
  }
  const option = verifyOption(checkout.optionSecret, best.id, id)!;
  const built = await requestsOf(adapter).build(option);
  const now = checkout.now();
  await checkout.db.knex.transaction(async (trx) => {
    await insertSolanaPayRequest(trx, {
      reference: built.reference,
      paymentId: id,
      chain: chain.config.caip2,
      optionId: best.id,
      lastValidBlockHeight: built.lastValidBlockHeight,
      createdAt: now,
    });
    // Due now, not later: a stream of posts re-adding the job must never keep pushing the search back.
    await checkout.jobs.add(trx, SOLANA_PAY_SEARCH_TASK, { paymentId: id }, { jobKey: searchKey(id), runAt: now });
  });
  const display = best.amount.display;
  const asset = `${decimalOf(BigInt(best.amount.value), display.decimals, true)} ${display.assetSymbol}`;
  return { transaction: built.transaction, message: `Pay ${fiatOf(payment)} to ${merchant.name} (${asset})` };
}

const searchKey = (paymentId: string) => `${SOLANA_PAY_SEARCH_TASK}:${paymentId}`;

/**
 * One round of the watcher: every open request of the payment is searched by its reference. A transaction that pays
 * its option is claimed as confirm claims (then the claim's watch takes it to `succeeded`); one that does not is
 * logged and pays nothing. Rounds go on while the payment is payable and a request is open, so they end at the
 * latest when the payment expires (after the late-confirm grace, for a transfer that landed in time).
 */
export async function searchSolanaPay(checkout: Checkout, paymentId: string): Promise<void> {
  const found = await findPayment(checkout.db.knex, paymentId);
  if (!found) return;
  const payment = await expireIfOverdue(checkout, found);
  if (payment.status !== 'requires_action') return;
  const requests = await openSolanaPayRequests(checkout.db.knex, paymentId);
  for (const request of requests) {
    const option = verifyOptionUnder(checkout.optionSecrets, request.optionId, paymentId);
    const served = requestChains(checkout).some((c) => c.config.caip2 === request.chain);
    const adapter = served ? adapterFor(checkout, request.chain) : undefined;
    if (!option || !adapter) {
      // The option secret or the chains changed since: nothing can rebuild this transaction any more.
      checkout.logger.warn({ paymentId, reference: request.reference }, 'solana pay request can no longer be checked');
      await closeSolanaPayRequest(checkout.db.knex, request.reference);
      continue;
    }
    const search = await requestsOf(adapter).search(option, request.lastValidBlockHeight);
    for (const refused of search.refused) {
      checkout.logger.warn(
        { paymentId, reference: request.reference, signature: refused.txId, reason: refused.reason },
        'solana pay: a transaction naming the reference does not pay the payment',
      );
    }
    if (search.paid) {
      await claimFound(checkout, payment, option, request.reference, search.paid);
      return;
    }
    if (search.final) await closeSolanaPayRequest(checkout.db.knex, request.reference);
  }
  if ((await countOpenSolanaPayRequests(checkout.db.knex, paymentId)) === 0) return;
  const now = checkout.now();
  await checkout.jobs.add(
    checkout.db.knex,
    SOLANA_PAY_SEARCH_TASK,
    { paymentId },
    { jobKey: searchKey(paymentId), runAt: now + SOLANA_PAY_SEARCH_EVERY_MS },
  );
}

async function claimFound(
  checkout: Checkout,
  payment: PaymentRow,
  option: VerifiedOption,
  reference: string,
  draft: Parameters<typeof recordClaim>[1]['draft'],
): Promise<void> {
  const minedMs = draft.minedAt === null ? null : draft.minedAt * 1000;
  // As for a late confirm: a transfer that landed after the payment expired does not pay it, but is recorded.
  if (minedMs !== null && minedMs > payment.expires_at) {
    await recordDiscrepancy(
      checkout,
      payment,
      option.claims,
      draft,
      'late_payment',
      `Solana Pay transfer mined at ${iso(minedMs)}, after the payment expired at ${iso(payment.expires_at)}.`,
    );
    await closeSolanaPayRequest(checkout.db.knex, reference);
    return;
  }
  const resultsDigest = createHash('sha256')
    .update(JSON.stringify([[draft.txId]]))
    .digest('hex');
  try {
    await recordClaim(checkout, {
      payment,
      option,
      draft,
      resultsDigest,
      wallet: 'Solana Pay',
      now: checkout.now(),
      foundOnChain: true,
    });
  } catch (err) {
    // The payment moved on meanwhile, or the transaction already paid another payment: nothing more to search.
    if (!(err instanceof ApiError)) throw err;
    checkout.logger.warn({ paymentId: payment.id, txId: draft.txId, reason: err.message }, 'solana pay claim refused');
    await closeSolanaPayRequest(checkout.db.knex, reference);
  }
}
