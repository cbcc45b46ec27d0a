/**
 * A link's payments are an index read (docs/decisions.md §30.8, issue 35 §2): on PostgreSQL, with thousands of
 * payments, most of them from no link, some from a busy link and some from many quiet ones, ANALYZE run, the plan of
 * the statement `listPayments({ linkId })` really sends (captured from knex's `query` event) reads the partial index
 * payments_link_idx and scans `payments` sequentially nowhere, on the first page and on a deep page.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { listPayments } from '../../server/src/db/queries/payments.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { explainNodes, statementsOf, type PlanNode } from '../helpers/plans.js';

const BIG = 'mer_linkplanbig00000';
const OTHER = 'mer_linkplanother000';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const N = 6000;
const BUSY = 'plink_busy0000000000000000';
const paymentId = (i: number) => `pay_${String(i).padStart(24, '0')}`;
/** One payment in three from a link: one in two of those from the busy link, the rest from 50 quiet ones. */
const linkOf = (i: number) =>
  i % 3 !== 0 ? null : i % 2 === 0 ? BUSY : `plink_quiet${String(i % 50).padStart(15, '0')}`;

async function planOf(knex: Knex, run: () => Promise<unknown>): Promise<PlanNode[]> {
  const sent = await statementsOf(knex, run);
  assert.equal(sent.length, 1, JSON.stringify(sent));
  assert.match(sent[0]!.sql, /"link_id" = \$\d+/, 'the statement filters on link_id');
  return explainNodes(knex, sent[0]!);
}

describe('ops.queryPlans a link’s payments read payments_link_idx [postgres]', function () {
  this.timeout(120_000);
  let test: TestDatabase;
  const knex = () => test.db.knex;

  before(async () => {
    test = await createTestDatabase('postgres');
    const k = knex();
    await seedMerchant(k, BIG);
    await seedMerchant(k, OTHER);
    const at = (i: number) => T0 + Math.floor((i * 400 * DAY) / N);
    await k.batchInsert(
      'payments',
      Array.from({ length: N }, (_, i) => ({
        id: paymentId(i),
        merchant_id: i % 4 === 1 ? OTHER : BIG,
        live: true,
        status: 'succeeded',
        state_version: 1,
        reference_id: `order-${i}`,
        amount_unit: 'iso4217/USD',
        amount_value: '1000',
        created_at: at(i),
        expires_at: at(i) + 900_000,
        updated_at: at(i),
        link_id: linkOf(i),
      })),
      500,
    );
    await k.raw('ANALYZE');
  });
  after(() => test?.drop());

  for (const [what, linkId] of [
    ['a busy link', BUSY],
    ['a quiet link', 'plink_quiet000000000000012'],
  ] as const) {
    it(`listPayments({ linkId }) of ${what} reads payments_link_idx, first page and a deep page`, async () => {
      for (const startingAfter of [undefined, { created_at: T0 + 300 * DAY, id: paymentId(4500) }]) {
        const nodes = await planOf(knex(), () =>
          listPayments(knex(), { merchantId: BIG, live: true, limit: 21, linkId, startingAfter }),
        );
        const shown = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Relation Name'], n['Index Name']]));
        assert.deepEqual(
          nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
          [],
          `no sequential scan: ${shown}`,
        );
        assert.ok(
          nodes.some((n) => /Index/.test(n['Node Type']) && n['Index Name'] === 'payments_link_idx'),
          `payments read through payments_link_idx: ${shown}`,
        );
      }
    });
  }
});
