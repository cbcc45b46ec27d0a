/**
 * Balances read per-key ledger totals (ledger_totals, migration 019, docs/decisions.md §24.10) instead of every
 * ledger row of the merchant: after any mix of postings (concurrent ones, repeats, amounts past 2^63, entries removed)
 * the totals equal a full scan of the entries, the migration's backfill builds the same totals, and a balance read
 * sends no statement over ledger_entries (on PostgreSQL its plan reads the totals' primary key).
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import * as totalsMigration from '../../server/src/db/migrations/019_ledger_totals.js';
import {
  insertLedgerEntries,
  scanLedgerSums,
  sumLedger,
  type LedgerEntry,
  type LedgerKind,
  type LedgerSum,
} from '../../server/src/db/queries/ledgerEntries.js';
import { feeBalances, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { statementsOf } from '../helpers/plans.js';

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KINDS: LedgerKind[] = [
  'received',
  'fee',
  'payable',
  'paid_out',
  'payout_reserved',
  'payout_released',
  'fee_invoiced',
];
const ASSETS = ['eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3', 'eip155:31337/slip44:60'];
const MERCHANTS = ['mer_totals00000000001', 'mer_totals00000000002'];

const sorted = (sums: LedgerSum[]) =>
  sums
    .map((s) => [s.merchantId, s.live, s.mode, s.chain, s.asset, s.address, s.kind, s.amount.toString()].join(' '))
    .sort();

describeEachDatabase('settlement.balances rollup', (get, dialect) => {
  const knex = () => get().db.knex;
  const next = random(24_10);
  let seq = 0;

  before(async () => {
    for (const id of MERCHANTS) await seedMerchant(knex(), id);
  });

  function entry(over: Partial<LedgerEntry> = {}): LedgerEntry {
    const digits = 1 + Math.floor(next() * 30);
    // Up to 30 digits: token amounts in wei pass 2^63 (and SQLite's integers) after ~9.2 ETH.
    const amount = BigInt('1' + '0'.repeat(digits - 1)) + BigInt(Math.floor(next() * 1e9));
    return {
      entryKey: `k:${seq++}`,
      kind: KINDS[Math.floor(next() * KINDS.length)]!,
      merchantId: MERCHANTS[Math.floor(next() * MERCHANTS.length)]!,
      live: next() < 0.5,
      mode: next() < 0.5 ? 'direct' : 'collected',
      chain: 'eip155:31337',
      asset: ASSETS[Math.floor(next() * ASSETS.length)]!,
      amount,
      address: next() < 0.2 ? null : `0x${String(Math.floor(next() * 4)).repeat(40)}`,
      paymentId: null,
      createdAt: 1_000 + seq,
      ...over,
    };
  }

  it('after random postings, concurrent ones and repeats, every total equals the sum of its entries', async () => {
    for (let round = 0; round < 30; round++) {
      const batches = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
        Array.from({ length: 1 + Math.floor(next() * 5) }, () => entry()),
      );
      // Several transactions at once, on the same keys: an addition must never be lost.
      await Promise.all(batches.map((b) => knex().transaction((trx) => insertLedgerEntries(trx, b))));
      // A repeat of an entry's key writes nothing, and adds nothing.
      if (round % 5 === 0) await insertLedgerEntries(knex(), [batches[0]![0]!]);
    }
    // Twenty writers adding to one key at the same time.
    const hot = entry({ merchantId: MERCHANTS[0], kind: 'payable', mode: 'collected', live: false, address: null });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        knex().transaction((trx) =>
          insertLedgerEntries(trx, [{ ...hot, entryKey: `hot:${i}`, amount: 10n ** 20n + BigInt(i) }]),
        ),
      ),
    );
    assert.deepEqual(sorted(await sumLedger(knex(), {})), sorted(await scanLedgerSums(knex(), {})));
    const [total] = await sumLedger(knex(), {
      merchantId: MERCHANTS[0],
      live: false,
      mode: 'collected',
      kinds: ['payable'],
      asset: hot.asset,
    });
    assert.ok(total!.amount >= 20n * 10n ** 20n + 190n, 'the twenty concurrent postings are all in the total');
  });

  it('an entry removed (an operator repairing the ledger) leaves the totals equal to the entries', async () => {
    const gone = await knex()('ledger_entries').select('id').orderBy('id').limit(7);
    await knex()('ledger_entries')
      .whereIn(
        'id',
        gone.map((r: { id: number }) => r.id),
      )
      .delete();
    await knex()('ledger_entries').where({ entry_key: 'k:40' }).update({ amount: '123456789012345678901234567' });
    assert.deepEqual(sorted(await sumLedger(knex(), {})), sorted(await scanLedgerSums(knex(), {})));
  });

  it('the migration builds the same totals from the entries already there', async () => {
    const before = sorted(await sumLedger(knex(), {}));
    await totalsMigration.down(knex());
    await totalsMigration.up(knex());
    assert.deepEqual(sorted(await sumLedger(knex(), {})), before);
    await insertLedgerEntries(knex(), [entry()]);
    assert.deepEqual(sorted(await sumLedger(knex(), {})), sorted(await scanLedgerSums(knex(), {})));
  });

  it('a balance read sends no statement over the ledger entries', async () => {
    const scope = { merchantId: MERCHANTS[0]!, live: false };
    const sent = await statementsOf(knex(), async () => {
      await unpaidBalances(knex(), scope);
      await feeBalances(knex(), scope);
    });
    assert.ok(sent.length > 0);
    assert.deepEqual(
      sent.filter((q) => q.sql.includes('ledger_entries')),
      [],
      `statements: ${JSON.stringify(sent)}`,
    );
    if (dialect !== 'postgres') return;
    // Many merchants' totals, so the planner has a table worth an index for.
    const others = Array.from({ length: 40 }, (_, i) => `mer_totalsplan${String(i).padStart(7, '0')}`);
    for (const id of others) await seedMerchant(knex(), id);
    await insertLedgerEntries(
      knex(),
      others.flatMap((merchantId) =>
        KINDS.flatMap((kind) => ASSETS.map((asset) => entry({ merchantId, kind, asset }))),
      ),
    );
    await knex().raw('analyze');
    const reads = (await statementsOf(knex(), () => unpaidBalances(knex(), scope))).filter((q) =>
      q.sql.startsWith('select'),
    );
    assert.equal(reads.length, 1, JSON.stringify(reads));
    const { sql, bindings } = reads[0]!;
    const plan = (await knex().raw(
      `explain (format json) ${sql.replace(/\$\d+/g, '?')}`,
      bindings as Knex.RawBinding[],
    )) as {
      rows: { 'QUERY PLAN': [{ Plan: unknown }] }[];
    };
    const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
    assert.doesNotMatch(text, /"Relation Name":"ledger_entries"/);
    assert.doesNotMatch(text, /Seq Scan/, text);
    assert.match(text, /"Index Name":"ledger_totals_pkey"/, text);
  });
});
