/**
 * Get payment options: every configured asset the buyer's accounts hold enough of, priced now, each with its
 * actions and a signed id. Nothing is written: the id carries the quote (optionToken.ts); the payment's settlement
 * mode says where options pay (settlement/mode.ts; collected settlement allocates the payment's deposit addresses,
 * once).
 */
import { collectDataFor, collectDataRequired } from '../collect/index.js';
import { findMerchant, type MerchantRow } from '../db/queries/accounts.js';
import type { PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { currencyOfUnit } from '../currencies.js';
import { buyerPaymentInfo, readBuyerPayment, type GatewayScope } from './buyerPayments.js';
import type { ChainAdapter, Holding, OptionClaims } from '../chains/adapter.js';
import { adapterFor, type Checkout } from './context.js';
import { newSalt, signOption, verifyOption } from './optionToken.js';
import { settlementModeOf } from '../settlement/modes.js';

type OptionsRequest = components['schemas']['GetPaymentOptionsRequest'];
type OptionsResponse = components['schemas']['GetPaymentOptionsResponse'];
type PaymentOption = components['schemas']['PaymentOption'];
type CollectData = components['schemas']['CollectData'];

/** Well-formed accounts grouped by the adapter that serves them; other namespaces are ignored, malformed ones refused. */
export function accountsByAdapter(checkout: Checkout, accounts: string[]): Map<ChainAdapter, string[]> {
  const grouped = new Map<ChainAdapter, string[]>();
  accounts.forEach((account, i) => {
    const adapter = adapterFor(checkout, account);
    if (!adapter) return;
    const normalised = adapter.normaliseAccount(account);
    if (!normalised) {
      throw new ApiError(
        'params_validation',
        `accounts[${i}] is not a valid ${adapter.namespace} account: ${account}.`,
      );
    }
    const list = grouped.get(adapter) ?? [];
    if (!list.includes(normalised)) list.push(normalised);
    grouped.set(adapter, list);
  });
  return grouped;
}

/**
 * Options and fetch need a payment that can still be paid: in `requires_action` and before `expiresAt` (the
 * late-confirm grace after it is for confirms of transfers already made, never for new ones).
 */
export function requirePayable(checkout: Checkout, payment: PaymentRow): void {
  const expired =
    payment.status === 'expired' || (payment.status === 'requires_action' && checkout.now() >= payment.expires_at);
  if (expired) throw new ApiError('payment_expired', `Payment ${payment.id} has expired.`);
  if (payment.status !== 'requires_action') {
    throw new ApiError(
      'invalid_state',
      `Payment ${payment.id} is ${payment.status}; only a payment in requires_action can be paid.`,
    );
  }
}

export async function paymentCollectData(
  checkout: Checkout,
  payment: PaymentRow,
  known?: MerchantRow,
): Promise<CollectData | null> {
  const merchant = known ?? (await findMerchant(checkout.db.knex, payment.merchant_id));
  if (!merchant) throw new Error(`payment ${payment.id} names merchant ${payment.merchant_id}, which does not exist`);
  const required = collectDataRequired({
    merchantCollectData: merchant.collect_data,
    amount: { unit: payment.amount_unit, value: payment.amount_value },
    thresholds: checkout.config.collectDataThresholds,
  });
  return required
    ? collectDataFor(payment.id, { publicBaseUrl: checkout.config.publicBaseUrl, optionSecret: checkout.optionSecret })
    : null;
}

async function optionOf(
  checkout: Checkout,
  adapter: ChainAdapter,
  payment: PaymentRow,
  holding: Holding,
  collectData: CollectData | null,
): Promise<PaymentOption | null> {
  const currency = currencyOfUnit(payment.amount_unit);
  if (!currency) return null;
  const now = checkout.now();
  const quote = await checkout.pricing.quote(
    { currency: currency.code, digits: currency.digits, minor: BigInt(payment.amount_value) },
    { ...holding.asset, chainCaip2: holding.chain },
    now,
  );
  if (!quote || quote.amount <= 0n || quote.amount > holding.balance) return null;
  const quoteExpiresAt = quote.expiresAt === null ? null : Math.floor(quote.expiresAt / 1000);
  const paymentDeadline = Math.floor(payment.expires_at / 1000);
  const claims: OptionClaims = {
    paymentId: payment.id,
    account: holding.account,
    chain: holding.chain,
    asset: holding.asset.caip19,
    amount: quote.amount.toString(),
    decimals: holding.asset.decimals,
    recipient: holding.recipient,
    kind: holding.kind,
    quoteExpiresAt,
    deadline: quoteExpiresAt === null ? paymentDeadline : Math.min(quoteExpiresAt, paymentDeadline),
    rate: quote.rate ? { ...quote.rate, source: quote.source } : null,
    issuedAt: now,
    salt: newSalt(),
  };
  const id = signOption(checkout.optionSecret, claims);
  const verified = verifyOption(checkout.optionSecret, id, payment.id)!;
  return {
    id,
    account: holding.account,
    amount: {
      unit: `caip19/${holding.asset.caip19}`,
      value: claims.amount,
      display: {
        assetSymbol: holding.asset.symbol,
        assetName: holding.asset.name,
        decimals: holding.asset.decimals,
        iconUrl: holding.asset.iconUrl,
        networkIconUrl: holding.asset.networkIconUrl,
        networkName: holding.asset.networkName,
      },
    },
    actions: await adapter.actions(verified),
    etaS: holding.etaS,
    // The contract's rule: an option never outlives its payment (the signed quote keeps its own expiry, which confirm's
    // late-transfer rules read). A pegged asset's quote does not expire: null (docs/decisions.md §11).
    expiresAt: quoteExpiresAt === null ? null : claims.deadline,
    collectData,
  };
}

type UnavailableNetwork = components['schemas']['UnavailableNetwork'];

/**
 * The options of the accounts, in the order the options endpoint lists them (each adapter's holdings in its chains'
 * configured asset order); Solana Pay takes the first of one account's. A chain none of whose RPC endpoints answers
 * lists no options and is named in `unavailable`, so one chain's outage never fails the other chains' options
 * (decisions.md §27.9).
 */
export async function pricedOptions(
  checkout: Checkout,
  payment: PaymentRow,
  merchant: MerchantRow,
  grouped: Map<ChainAdapter, string[]>,
  collectData: CollectData | null,
): Promise<{ options: PaymentOption[]; unavailable: UnavailableNetwork[] }> {
  const options: PaymentOption[] = [];
  const unavailable: UnavailableNetwork[] = [];
  // The payment's own mode, whatever the merchant switched to since (§22.14), says where its options pay.
  const mode = await settlementModeOf(checkout.db.knex, payment);
  const recipients = await mode.optionRecipients(checkout, payment, merchant);
  for (const [adapter, accounts] of grouped) {
    const read = await adapter.holdings({ accounts, live: payment.live, settlement: recipients.settlement });
    const holdings = read.holdings.filter((h) => recipients.assets === null || recipients.assets.has(h.asset.caip19));
    const priced = await Promise.all(holdings.map((h) => optionOf(checkout, adapter, payment, h, collectData)));
    options.push(...priced.filter((o): o is PaymentOption => o !== null));
    unavailable.push(...read.unavailable.map((chain) => ({ chain, reason: 'network_unavailable' as const })));
  }
  return { options, unavailable };
}

export async function listPaymentOptions(
  checkout: Checkout,
  scope: GatewayScope,
  id: string,
  body: OptionsRequest,
  includePaymentInfo: boolean,
): Promise<OptionsResponse> {
  const grouped = accountsByAdapter(checkout, body.accounts);
  const payment = await readBuyerPayment(checkout, scope, id);
  requirePayable(checkout, payment);
  // Screened like confirm, but the payment is left as it is: listing options proves no ownership of the account.
  if ([...grouped.values()].flat().some((account) => checkout.screening.matches(account))) {
    throw new ApiError('sanctioned_user', 'This account cannot pay through this service.');
  }
  const merchant = await findMerchant(checkout.db.knex, payment.merchant_id);
  if (!merchant) throw new Error(`payment ${id} names merchant ${payment.merchant_id}, which does not exist`);
  const collectData = await paymentCollectData(checkout, payment, merchant);
  const { options, unavailable } = await pricedOptions(checkout, payment, merchant, grouped, collectData);
  return {
    options,
    collectData,
    unavailable,
    info: includePaymentInfo ? await buyerPaymentInfo(checkout, scope, id) : null,
  };
}
