/**
 * A terminal's sales (docs/decisions.md §30.14): a keypad amount or catalogue items, plus an optional tip, become a
 * payment of the terminal's merchant, in its mode, recorded as the terminal's so that its key can follow it. The
 * key can do nothing else: every payment it did not create is answered as unknown.
 */
import type { Chains } from '../chains/index.js';
import { allChains, solanaPayUri } from '../chains/index.js';
import type { Checkout } from '../checkout/context.js';
import { solanaPayLink } from '../checkout/solanaPay.js';
import { findMerchant } from '../db/queries/accounts.js';
import type { PaymentRow } from '../db/queries/payments.js';
import { findPosPayment, insertPosPayment, type PosTerminalRow } from '../db/queries/posTerminals.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { randomBase62 } from '../ids.js';
import { createPayment } from '../payments/lifecycle.js';
import {
  gatewayUrlOf,
  newPaymentFrom,
  readPayment,
  refuseUnpriced,
  type MerchantDeps,
} from '../payments/merchantPayments.js';
import { isFinal } from '../payments/stateMachine.js';
import { settlementModeOf } from '../settlement/modes.js';
import { itemId } from './terminals.js';

export type PosPayment = components['schemas']['PosPayment'];
type SaleRequest = components['schemas']['CreatePosPaymentRequest'];

export interface PosSaleDeps extends MerchantDeps {
  chains: Chains | null;
  checkout: Checkout | null;
}

const MAX_VALUE = 10n ** 15n;
const PAYMENT_ID = /^pay_[0-9A-Za-z]{24}$/;

function invalid(message: string): ApiError {
  return new ApiError('params_validation', message);
}

/**
 * The tip of a subtotal, in integer minor units: round(subtotal × percent / 100), halves rounded up, in bigint so
 * no float ever touches money. The screen shows the same rule (web/src/pos/amounts.ts) before the sale is sent.
 */
export function tipOf(subtotal: bigint, percent: number): bigint {
  return (subtotal * BigInt(percent) + 50n) / 100n;
}

/** Subtotal and tip of a sale, by the terminal's catalogue and tip buttons. */
export function priceSale(terminal: PosTerminalRow, sale: SaleRequest): { subtotal: bigint; tip: bigint } {
  if ((sale.amount === undefined) === (sale.items === undefined)) {
    throw invalid('Give either amount (the keypad) or items (the catalogue), not both and not neither.');
  }
  let subtotal = 0n;
  if (sale.amount !== undefined) subtotal = BigInt(sale.amount);
  for (const line of sale.items ?? []) {
    const index = terminal.catalogue.findIndex((_, i) => itemId(i) === line.itemId);
    if (index < 0) throw invalid(`items: ${line.itemId} is not in this terminal's catalogue.`);
    subtotal += BigInt(terminal.catalogue[index]!.unitAmount) * BigInt(line.quantity);
  }
  let tip = 0n;
  if (sale.tipPercent !== undefined) {
    if (!terminal.tip_percents.includes(sale.tipPercent)) {
      throw invalid(
        `tipPercent ${sale.tipPercent} is not one of this terminal's tips (${terminal.tip_percents.join(', ') || 'none'}).`,
      );
    }
    tip = tipOf(subtotal, sale.tipPercent);
  }
  if (subtotal + tip >= MAX_VALUE) throw invalid('The sale is over the largest amount a payment takes (15 digits).');
  return { subtotal, tip };
}

/** The sale's lines: the items, or the keypad amount when there is a tip to list beside it; then the tip. */
function saleLines(
  terminal: PosTerminalRow,
  sale: SaleRequest,
  subtotal: bigint,
  tip: bigint,
): { lineItems?: { name: string; quantity: number; unitAmount: string }[] } {
  const lines = (sale.items ?? []).map((line) => {
    const item = terminal.catalogue.find((_, i) => itemId(i) === line.itemId)!;
    return { name: item.name, quantity: line.quantity, unitAmount: item.unitAmount };
  });
  if (sale.tipPercent === undefined) return lines.length > 0 ? { lineItems: lines } : {};
  if (lines.length === 0) lines.push({ name: 'Amount', quantity: 1, unitAmount: subtotal.toString() });
  lines.push({ name: `Tip ${sale.tipPercent} %`, quantity: 1, unitAmount: tip.toString() });
  return { lineItems: lines };
}

export async function createPosSale(
  deps: PosSaleDeps,
  terminal: PosTerminalRow,
  sale: SaleRequest,
): Promise<PosPayment> {
  const { subtotal, tip } = priceSale(terminal, sale);
  const scope = { merchantId: terminal.merchant_id, live: terminal.live };
  const input = newPaymentFrom(deps.now(), scope, {
    amount: { unit: `iso4217/${terminal.currency}`, value: (subtotal + tip).toString() },
    // Unique per sale and readable in exports: which terminal rang it up.
    referenceId: `${terminal.id}-${randomBase62(8)}`,
    // What was sold (§30.1), so exports, webhooks and the checkout say it: the lines add up to the amount exactly.
    description: `Point of sale: ${terminal.name}`,
    ...saleLines(terminal, sale, subtotal, tip),
  });
  refuseUnpriced(deps, input);
  const row = await deps.db.knex.transaction(async (trx) => {
    const created = await createPayment(deps, input, trx);
    await insertPosPayment(trx, {
      payment_id: created.id,
      pos_id: terminal.id,
      subtotal: subtotal.toString(),
      tip: tip.toString(),
    });
    return created;
  });
  return saleAnswer(deps, row, { subtotal: subtotal.toString(), tip: tip.toString() });
}

/** A sale of this terminal as of now; any other payment id is unknown to the key, whoever's it is. */
export async function readPosSale(deps: PosSaleDeps, terminal: PosTerminalRow, paymentId: string): Promise<PosPayment> {
  // Only an id of the issued form can name a sale; any other (a NUL, which PostgreSQL cannot hold) is unknown.
  const sale = PAYMENT_ID.test(paymentId) ? await findPosPayment(deps.db.knex, paymentId) : null;
  if (!sale || sale.pos_id !== terminal.id) {
    throw new ApiError('payment_not_found', `No payment with id ${paymentId}.`);
  }
  const row = await readPayment(deps, { merchantId: terminal.merchant_id, live: terminal.live }, paymentId);
  return saleAnswer(deps, row, sale);
}

async function saleAnswer(
  deps: PosSaleDeps,
  row: PaymentRow,
  amounts: { subtotal: string; tip: string },
): Promise<PosPayment> {
  const merchant = await findMerchant(deps.db.knex, row.merchant_id);
  const mode = row.live ? 'live' : 'test';
  // The chains the checkout offers for this payment (hostedCheckout/pageTemplate.ts `checkoutChains`): its mode's,
  // where the merchant can be paid.
  const settlement = merchant?.settlement_addresses ?? {};
  const chains = deps.chains
    ? allChains(deps.chains)
        .map((c) => c.config)
        .filter((c) => c.mode === mode && settlement[c.caip2] !== undefined)
    : [];
  const open = row.status === 'requires_action';
  return {
    paymentId: row.id,
    status: row.status,
    isFinal: isFinal(row.status),
    amount: { unit: row.amount_unit, value: row.amount_value },
    subtotal: amounts.subtotal,
    tip: amounts.tip,
    expiresAt: Math.floor(row.expires_at / 1000),
    paymentLink: gatewayUrlOf(deps.config.publicBaseUrl, row.id),
    solanaPayLink: open
      ? solanaPayUri(chains, (chain) => solanaPayLink(deps.config.publicBaseUrl, row.id, chain))
      : null,
    paymentUris: open ? await paymentUris(deps, row) : [],
  };
}

/**
 * The deposit addresses' payment URIs (EIP-681 on EVM chains) of a payment in collected settlement, as the
 * checkout's "pay from any wallet" panel shows them; none for a merchant paid directly (its mode refuses).
 */
async function paymentUris(deps: PosSaleDeps, row: PaymentRow): Promise<PosPayment['paymentUris']> {
  if (!deps.checkout || !deps.chains) return [];
  const mode = await settlementModeOf(deps.db.knex, row);
  let deposits;
  try {
    deposits = (await mode.depositOptions(deps.checkout, row)).deposits;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_state') return [];
    throw err;
  }
  const configured = allChains(deps.chains).map((c) => c.config);
  return deposits.map((d) => {
    const chain = configured.find((c) => c.caip2 === d.chain);
    const asset = chain?.assets.find((a) => `caip19/${a.caip19}` === d.amount.unit);
    const label = `${asset?.symbol ?? 'Token'} on ${chain?.name ?? d.chain}`;
    return { chain: d.chain, label, uri: d.uri };
  });
}
