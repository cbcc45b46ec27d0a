/**
 * Test-mode payments whose money Paygate holds on the run's local chain (collected settlement), for the payment
 * page's refunds: written through the query functions on the real database, the way the detection and settlement
 * code leaves them (the flows that produce them on chain are tested in test/settlement/).
 */
import type { Knex } from 'knex';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { newId } from '../../server/src/ids.js';
import { insertLedgerEntries, type LedgerEntry } from '../../server/src/settlement/ledger.js';

export interface HeldMoney {
  chain: string;
  tusd: string;
  merchantId: string;
  now: number;
}

async function payment(knex: Knex, h: HeldMoney, status: 'succeeded' | 'expired'): Promise<string> {
  const id = newId.payment();
  await insertPayments(knex, [
    {
      id,
      merchant_id: h.merchantId,
      live: false,
      status,
      state_version: 2,
      reference_id: `order_${id.slice(-6)}`,
      amount_unit: 'iso4217/USD',
      amount_value: '1250',
      success_url: null,
      error_url: null,
      created_at: h.now - 60_000,
      expires_at: h.now - 1_000,
      updated_at: h.now,
    },
  ]);
  return id;
}

const entries = (h: HeldMoney, paymentId: string, kinds: [LedgerEntry['kind'], bigint][]) =>
  kinds.map(([kind, amount], i): LedgerEntry => ({
    entryKey: `${kind}:${paymentId}`,
    kind,
    merchantId: h.merchantId,
    live: false,
    mode: 'collected',
    chain: h.chain,
    asset: h.tusd,
    amount,
    address: kind === 'received' || kind === 'excess' ? `0x${'d0'.repeat(20)}` : null,
    paymentId,
    txId: kind === 'received' || kind === 'excess' ? `0x${'7a'.repeat(32)}` : null,
    createdAt: h.now + i,
  }));

/** A succeeded payment of 12.50 TUSD paid by a plain transfer to its deposit address: 12.40 owed after a 0.10 fee. */
export async function collectedPayment(knex: Knex, h: HeldMoney): Promise<string> {
  const id = await payment(knex, h, 'succeeded');
  const unit = `caip19/${h.tusd}`;
  await knex('payments')
    .where({ id })
    .update({
      processing: JSON.stringify({
        processing_at: new Date(h.now - 30_000).toISOString(),
        option_amount: { unit, value: '12500000' },
        fee: null,
        settlement_amount: { unit, value: '12400000' },
        buyer_caip10: `${h.chain}:0x${'b0'.repeat(20)}`,
        chain_caip2: h.chain,
      }),
      success: JSON.stringify({ succeeded_at: new Date(h.now - 20_000).toISOString(), tx_id: `0x${'7a'.repeat(32)}` }),
    });
  for (const e of entries(h, id, [
    ['received', 12_500_000n],
    ['fee', 100_000n],
    ['payable', 12_400_000n],
  ]))
    await insertLedgerEntries(knex, [e]);
  return id;
}

/** 5 of 12.50 TUSD arrived at the deposit address, then the payment expired: the 5 TUSD are an excess to refund. */
export async function partlyPaidPayment(knex: Knex, h: HeldMoney): Promise<string> {
  const id = await payment(knex, h, 'expired');
  await knex('payments')
    .where({ id })
    .update({ expired: JSON.stringify({ expired_at: new Date(h.now - 1_000).toISOString() }) });
  for (const e of entries(h, id, [
    ['received', 5_000_000n],
    ['excess', 5_000_000n],
  ]))
    await insertLedgerEntries(knex, [e]);
  return id;
}
