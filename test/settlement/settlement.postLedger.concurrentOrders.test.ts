/**
 * Postings of several ledger keys in one transaction, by concurrent transactions that list the keys in opposite
 * orders (a payout planned beside a payment's settlement, two refunds of one merchant): each posting updates the
 * keys' ledger_totals rows (migration 019's trigger), and on PostgreSQL each row stays locked until commit, so two
 * transactions that lock the same rows in opposite orders would deadlock (40P01) and one of them would fail.
 * insertLedgerEntries writes a call's entries in one key order (docs/decisions.md §24.15).
 */
import assert from 'node:assert/strict';
import {
  insertLedgerEntries,
  scanLedgerSums,
  sumLedger,
  type LedgerEntry,
  type LedgerKind,
} from '../../server/src/db/queries/ledgerEntries.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';

const MERCHANT = 'mer_orders0000000001';
const KINDS: LedgerKind[] = ['received', 'fee', 'payable', 'paid_out', 'payout_reserved', 'payout_released'];
const ASSETS = ['eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3', 'eip155:31337/slip44:60'];

describeEachDatabase('settlement.postLedger concurrent orders', (get) => {
  const knex = () => get().db.knex;
  let seq = 0;
  before(() => seedMerchant(knex(), MERCHANT));

  const entries = (): LedgerEntry[] =>
    KINDS.flatMap((kind) =>
      ASSETS.map((asset) => ({
        entryKey: `order:${seq++}`,
        kind,
        merchantId: MERCHANT,
        live: false,
        mode: 'direct' as const,
        chain: 'eip155:31337',
        asset,
        amount: 1000n,
        address: null,
        paymentId: null,
        createdAt: 1_000 + seq,
      })),
    );

  it('posts the same keys in opposite orders from concurrent transactions without a deadlock', async function () {
    this.timeout(120_000);
    const failures: string[] = [];
    for (let round = 0; round < 15; round++) {
      await Promise.all(
        Array.from({ length: 4 }, (_, i) => {
          const batch = entries();
          if (i % 2 === 1) batch.reverse();
          return knex()
            .transaction((trx) => insertLedgerEntries(trx, batch))
            .catch((err: unknown) => failures.push(String((err as { code?: string }).code ?? err)));
        }),
      );
    }
    assert.deepEqual(failures, [], 'no posting failed');
    const sums = await sumLedger(knex(), { merchantId: MERCHANT });
    assert.equal(sums.length, KINDS.length * ASSETS.length);
    assert.deepEqual(
      sums.map((s) => `${s.kind} ${s.asset} ${s.amount}`).sort(),
      (await scanLedgerSums(knex(), { merchantId: MERCHANT })).map((s) => `${s.kind} ${s.asset} ${s.amount}`).sort(),
    );
    for (const s of sums) assert.equal(s.amount, 15n * 4n * 1000n);
  });
});
