/**
 * Settlement state of one merchant for the dashboard's settlement operations and screens, written through the
 * settlement query functions on the real database (the flows that produce it on chain are tested in test/settlement/):
 * live payouts in each state with the payments they covered, and ledger entries of both settlement modes.
 */
import type { Knex } from 'knex';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { insertPayout, type PayoutItem, type PayoutRow } from '../../server/src/db/queries/payoutRows.js';
import { newId } from '../../server/src/ids.js';
import { insertLedgerEntries, type LedgerEntry } from '../../server/src/settlement/ledger.js';

export const CHAIN = 'eip155:8453';
export const USDC = `${CHAIN}/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913`;
export const DESTINATION = '0x912b989d6400706ac06214fa636a16a9801fcd46';
export const PAYOUT_TX = `0x${'5f1d'.repeat(16)}`;
export const DIRECT_TX = `0x${'69b2'.repeat(16)}`;
/** Beyond 2^64: sums and rows stay exact whatever the database. */
export const HUGE = 2n ** 64n + 7n;

export interface SettlementData {
  payments: string[];
  /** Newest first: sent (one payment), final (two payments), failed (none left). */
  payouts: { sent: string; final: string; failed: string };
  /** A test-mode payout, never visible in live mode. */
  testPayout: string;
}

/** Writes the state at `t0` (ms): payouts a minute apart, ledger entries a second apart. */
export async function writeSettlement(knex: Knex, merchantId: string, t0: number): Promise<SettlementData> {
  const payments = [newId.payment(), newId.payment(), newId.payment(), newId.payment()];
  await insertPayments(
    knex,
    payments.map((id, i) => ({
      id,
      merchant_id: merchantId,
      live: i < 3,
      status: 'succeeded' as const,
      state_version: 0,
      reference_id: `order_${i}`,
      amount_unit: 'iso4217/USD',
      amount_value: '1250',
      success_url: null,
      error_url: null,
      created_at: t0,
      expires_at: t0 + 86_400_000,
      updated_at: t0,
    })),
  );
  const payout = async (
    over: Partial<PayoutRow> & { id: string; createdAt: number },
    items: Omit<PayoutItem, 'payoutId'>[],
  ) => {
    const gross = items.reduce((s, i) => s + i.gross, 0n);
    const fee = items.reduce((s, i) => s + i.fee, 0n);
    await knex.transaction((trx) =>
      insertPayout(
        trx,
        {
          merchantId,
          live: true,
          chain: CHAIN,
          asset: USDC,
          gross,
          fee,
          net: gross - fee,
          destination: DESTINATION,
          treasury: null,
          state: 'planned',
          txId: null,
          sentAt: null,
          finalAt: null,
          ...over,
        },
        items.map((i) => ({ ...i, payoutId: over.id })),
      ),
    );
    if (over.state && over.state !== 'planned') {
      await knex('payouts')
        .where({ id: over.id })
        .update({ state: over.state, tx_id: over.txId ?? null, sent_at: over.sentAt, final_at: over.finalAt });
    }
  };
  const item = (paymentId: string, gross: bigint, fee: bigint) => ({ paymentId, gross, fee, net: gross - fee });
  const ids = { failed: newId.payout(), final: newId.payout(), sent: newId.payout(), test: newId.payout() };
  await payout({ id: ids.failed, createdAt: t0, state: 'failed', sentAt: null, finalAt: null }, []);
  await payout(
    {
      id: ids.final,
      createdAt: t0 + 60_000,
      state: 'final',
      txId: PAYOUT_TX,
      sentAt: t0 + 61_000,
      finalAt: t0 + 120_000,
    },
    [item(payments[0]!, 12_500_000n, 225_000n), item(payments[1]!, HUGE, 1_000n)],
  );
  await payout(
    { id: ids.sent, createdAt: t0 + 120_000, state: 'sent', txId: `0x${'ab'.repeat(32)}`, sentAt: t0 + 121_000 },
    [item(payments[2]!, 5_000_000n, 90_000n)],
  );
  await payout({ id: ids.test, createdAt: t0, live: false }, [item(payments[3]!, 7n, 1n)]);

  const entry = (over: Partial<LedgerEntry> & Pick<LedgerEntry, 'entryKey' | 'kind' | 'amount'>): LedgerEntry => ({
    merchantId,
    live: true,
    mode: 'collected',
    chain: CHAIN,
    asset: USDC,
    address: null,
    createdAt: t0,
    ...over,
  });
  // Entries a second apart are separate postings, written in time order: one posting writes its entries in the
  // order of their totals' keys (docs/decisions.md §24.15), not in the order given.
  const postings = [
    entry({
      entryKey: `received:${payments[0]}`,
      kind: 'received',
      amount: 12_500_000n,
      mode: 'direct',
      address: DESTINATION,
      paymentId: payments[0],
      txId: DIRECT_TX,
    }),
    entry({
      entryKey: `fee:${payments[0]}`,
      kind: 'fee',
      amount: 225_000n,
      mode: 'direct',
      paymentId: payments[0],
      createdAt: t0 + 1000,
    }),
    entry({
      entryKey: `payable:${payments[1]}`,
      kind: 'payable',
      amount: HUGE,
      paymentId: payments[1],
      createdAt: t0 + 2000,
    }),
    entry({
      entryKey: `paid_out:${ids.final}:${payments[1]}`,
      kind: 'paid_out',
      amount: 1_000_000n,
      paymentId: payments[1],
      payoutId: ids.final,
      txId: PAYOUT_TX,
      address: '=cmd|calc',
      createdAt: t0 + 3000,
    }),
    entry({ entryKey: 'payable:test', kind: 'payable', amount: 7n, live: false, createdAt: t0 + 4000 }),
  ];
  for (const posting of postings) await insertLedgerEntries(knex, [posting]);
  return { payments, payouts: { sent: ids.sent, final: ids.final, failed: ids.failed }, testPayout: ids.test };
}
