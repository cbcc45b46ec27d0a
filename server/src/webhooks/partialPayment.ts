/**
 * `payment.partially_paid` (docs/decisions.md §26.26): opt-in, sent only to an endpoint that names the type, so an
 * endpoint on the seven default types never sees it. Told once per arrival at a collected payment's deposit address
 * that leaves it short (detection calls `onArrival` under the payment's row lock, for a transfer whose `received`
 * ledger row it is writing for the first time), and once when a payment holding such money ends expired or
 * cancelled (the lifecycle hook). Like invoice events (§30.12) each is a delivery with its own signed envelope: the
 * `events` outbox is the payment's versioned history, and an arrival is no version of the payment.
 */
import type { Knex } from 'knex';
import { listLedgerEntries } from '../db/queries/ledgerEntries.js';
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { findActiveEndpoint } from '../db/queries/webhooks.js';
import type { components } from '../generated/merchant.js';
import { newId } from '../ids.js';
import type { EventHook } from '../payments/lifecycle.js';
import { iso, WEBHOOK_API_VERSION } from '../payments/snapshot.js';
import { scheduleDelivery } from './delivery.js';
import type { WebhookDeps } from './deliveryDeps.js';

export type PaymentPartiallyPaidEvent = components['schemas']['PaymentPartiallyPaidEvent'];

const TYPE = 'payment.partially_paid';

/** What a partly paid payment holds in one asset; amounts in the asset's minor units. */
export interface PartialArrival {
  payment: PaymentRow;
  chain: string;
  asset: string;
  /** The amount of `asset` that pays the payment in full. */
  asked: bigint;
  /** What has arrived so far, counting the arrival told. */
  received: bigint;
  txId: string;
}

/** Detection's port: called in the crediting transaction, once per new arrival that leaves the payment short. */
export type PartialArrivals = (trx: Knex.Transaction, arrival: PartialArrival) => Promise<void>;

/** The amount of an asset that pays a payment (detection's rule), or null when no fixed amount does. */
export type AskedOf = (payment: PaymentRow, chain: string, asset: string) => Promise<bigint | null>;

/** The merchant's endpoint for the mode, if it is enabled and asked for the type; most ask for none. */
async function subscribedEndpoint(trx: Knex.Transaction, merchantId: string, live: boolean) {
  const endpoint = await findActiveEndpoint(trx, merchantId, live ? 'live' : 'test');
  return endpoint && endpoint.enabled && endpoint.event_types.includes(TYPE) ? endpoint : null;
}

export async function sendPartiallyPaid(deps: WebhookDeps, trx: Knex.Transaction, arrival: PartialArrival) {
  const { payment } = arrival;
  const endpoint = await subscribedEndpoint(trx, payment.merchant_id, payment.live);
  if (!endpoint) return;
  const status = payment.status;
  if (status !== 'requires_action' && status !== 'expired' && status !== 'cancelled') return;
  const money = (value: bigint) => ({ unit: `caip19/${arrival.asset}`, value: value.toString() });
  const remaining = arrival.asked > arrival.received ? arrival.asked - arrival.received : 0n;
  const envelope: PaymentPartiallyPaidEvent = {
    id: newId.event(),
    type: TYPE,
    api_version: WEBHOOK_API_VERSION,
    created_at: iso(deps.now()),
    data: {
      payment_id: payment.id,
      live: payment.live,
      status,
      amount: { unit: payment.amount_unit, value: payment.amount_value },
      chain_caip2: arrival.chain,
      asked: money(arrival.asked),
      received: money(arrival.received),
      remaining: money(remaining),
      tx_id: arrival.txId,
      // An ended payment cannot take the money any more: it is the buyer's, refunded from the excess (§22.12).
      refund_state: status === 'requires_action' ? 'none' : 'to_refund',
    },
  };
  await scheduleDelivery(
    deps,
    trx,
    endpoint,
    { id: envelope.id, type: TYPE, payment_id: payment.id, payload: JSON.stringify(envelope) },
    'event',
  );
}

/**
 * The lifecycle's hook: a payment that ends expired or cancelled while its deposit address holds money tells it
 * once more, with the refund state, in the transaction that ended it.
 */
export function partialPaymentEndHook(deps: WebhookDeps, askedOf: AskedOf): EventHook {
  const hook: EventHook = async (trx, event) => {
    if (event.type !== 'payment.expired' && event.type !== 'payment.cancelled') return;
    // The subscription first: an expiry sweep ends payments by the thousand, and few merchants opt in.
    if (!(await subscribedEndpoint(trx, event.merchant_id, event.live))) return;
    const received = await listLedgerEntries(trx, {
      paymentId: event.payment_id,
      kinds: ['received'],
      mode: 'collected',
    });
    const last = received.at(-1);
    if (!last) return;
    const payment = await findPayment(trx, event.payment_id);
    if (!payment) return;
    const asked = await askedOf(payment, last.chain, last.asset);
    if (asked === null) return;
    const sum = received
      .filter((e) => e.chain === last.chain && e.asset === last.asset)
      .reduce((a, e) => a + e.amount, 0n);
    await sendPartiallyPaid(deps, trx, {
      payment,
      chain: last.chain,
      asset: last.asset,
      asked,
      received: sum,
      txId: last.txId ?? '',
    });
  };
  // A created payment holds no money.
  hook.onCreated = 'nothing';
  return hook;
}
