/** The ledger (settlement/ledger.ts): entries happen once by key, and balances are exact beyond 2^64. */
import assert from 'node:assert/strict';
import type { LedgerEntry } from '../../server/src/db/queries/ledgerEntries.js';
import {
  feeBalances,
  insertLedgerEntries,
  listLedgerEntries,
  unpaidBalances,
} from '../../server/src/settlement/ledger.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';

describeEachDatabase('settlement.ledger', (get) => {
  let merchantId: string;
  before(async () => {
    merchantId = await seedMerchant(get().db.knex, 'mer_ledger0000000001');
  });

  const entry = (over: Partial<LedgerEntry>): LedgerEntry => ({
    entryKey: 'k',
    kind: 'payable',
    merchantId,
    live: true,
    mode: 'collected',
    chain: 'eip155:31337',
    asset: 'eip155:31337/slip44:60',
    amount: 1n,
    address: null,
    createdAt: 0,
    ...over,
  });

  it('insertLedgerEntries: a repeated entry key writes nothing the second time', async () => {
    const knex = get().db.knex;
    assert.equal(await insertLedgerEntries(knex, [entry({ entryKey: 'payable:a', amount: 5n })]), 1);
    assert.equal(await insertLedgerEntries(knex, [entry({ entryKey: 'payable:a', amount: 5n })]), 0);
    const rows = await listLedgerEntries(knex, { merchantId });
    assert.equal(rows.filter((r) => r.entryKey === 'payable:a').length, 1);
  });

  it('insertLedgerEntries: a zero or negative amount is refused before anything is written', async () => {
    await assert.rejects(insertLedgerEntries(get().db.knex, [entry({ entryKey: 'zero', amount: 0n })]), /not positive/);
  });

  it('unpaidBalances: payable minus paid out minus refunded, exact beyond 2^64 (18-decimal tokens)', async () => {
    const knex = get().db.knex;
    const big = 2n ** 70n + 3n;
    await insertLedgerEntries(knex, [
      entry({ entryKey: 'payable:b', amount: big }),
      entry({ entryKey: 'payable:c', amount: big }),
      entry({ entryKey: 'paid_out:b', kind: 'paid_out', amount: big - 1n }),
      entry({ entryKey: 'refunded:c', kind: 'refunded', amount: 2n }),
      // Another mode and another mode flag do not count.
      entry({ entryKey: 'payable:direct', mode: 'direct', amount: 1000n }),
      entry({ entryKey: 'payable:test', live: false, amount: 7n }),
    ]);
    const live = (await unpaidBalances(knex, { merchantId, live: true }))[0]!;
    assert.equal(live.amount, 5n + big + 1n - 2n);
    const test = (await unpaidBalances(knex, { merchantId, live: false }))[0]!;
    assert.equal(test.amount, 7n);
  });

  it('feeBalances: direct fees minus those invoiced', async () => {
    const knex = get().db.knex;
    await insertLedgerEntries(knex, [
      entry({ entryKey: 'fee:x', kind: 'fee', mode: 'direct', amount: 300n }),
      entry({ entryKey: 'fee:y', kind: 'fee', mode: 'direct', amount: 200n }),
      entry({ entryKey: 'fee_invoiced:1', kind: 'fee_invoiced', mode: 'direct', amount: 250n }),
      entry({ entryKey: 'fee:collected', kind: 'fee', mode: 'collected', amount: 99n }),
    ]);
    const [balance] = await feeBalances(knex, { merchantId, live: true });
    assert.equal(balance!.amount, 250n);
  });
});
