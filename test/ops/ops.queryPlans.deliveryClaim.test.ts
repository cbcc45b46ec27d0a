/**
 * The webhook attempt's claim finds each delivery by its primary key (docs/decisions.md §24.18, issue 36). In
 * production the statistics of `webhook_deliveries` see millions of delivered rows and almost no pending ones, while
 * the real pending set can be large: an endpoint's outage leaves its retries behind, a burst of events queues up.
 * With the claim's `status = 'pending'` usable as an index condition, the planner read every pending delivery through
 * the due index and hashed them against the claims, so each claim's cost grew with the backlog. Here the table holds
 * 40,000 delivered rows that ANALYZE saw and 2,000 pending ones it did not; the plan of the statement the server
 * prepares (its text from `stepSql`, never a hand copy) must look the claims up through the primary key, as a custom
 * plan and as the generic plan PostgreSQL caches after five runs.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { stepSql } from '../../server/src/db/queries/webhooks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { nodesOf, type PlanNode } from '../helpers/plans.js';

const MERCHANT = 'mer_claimplan00000000';
const ENDPOINT = 'we_claimplan';
const CLAIMS = 16;
const NOW = Date.UTC(2026, 10, 1);

let prepared = 0;

/** The scans of `webhook_deliveries` in the plan of `text` run with `values`, in the given plan cache mode. */
async function deliveryScans(knex: Knex, text: string, types: string[], values: unknown[], mode: string) {
  // EXECUTE takes literals, not placeholders: the values are ours (ids, owners and numbers), quoted here.
  const literals = values.map((v) => (typeof v === 'number' ? String(v) : `'${String(v)}'`)).join(', ');
  const name = `claim_plan_${++prepared}`;
  return knex.transaction(async (trx) => {
    await trx.raw(`SET LOCAL plan_cache_mode = ${mode}`);
    await trx.raw(`PREPARE ${name} (${types.join(', ')}) AS ${text}`);
    const explained = (await trx.raw(`EXPLAIN (FORMAT JSON) EXECUTE ${name} (${literals})`)) as {
      rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[];
    };
    await trx.raw(`DEALLOCATE ${name}`);
    return nodesOf(explained.rows[0]!['QUERY PLAN'][0].Plan)
      .filter((n) => n['Relation Name'] === 'webhook_deliveries' && n['Node Type'] !== 'ModifyTable')
      .map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`.trim());
  });
}

describe('ops.queryPlans webhook claim by primary key [postgres]', function () {
  this.timeout(120_000);
  let test: TestDatabase;

  before(async () => {
    test = await createTestDatabase('postgres');
    const k = test.db.knex;
    await seedMerchant(k, MERCHANT);
    await k('webhook_endpoints').insert({
      id: ENDPOINT,
      merchant_id: MERCHANT,
      mode: 'test',
      url: 'https://example.com/hook',
      event_types: '[]',
      enabled: true,
      secret_sealed: 'x',
      secret_rotated_at: 0,
      created_at: 0,
    });
    const insertDeliveries = (from: number, count: number, status: string) =>
      k.raw(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, merchant_id, live, status, trigger,
           attempt_count, next_attempt_at, created_at, delivered_at, updated_at)
         SELECT 'whd_' || lpad(i::text, 20, '0'), ?, 'evt_' || lpad(i::text, 20, '0'), 'payment.succeeded', ?, false,
           ?, 'event', 1, CASE WHEN ?::text = 'pending' THEN ?::bigint - 1000 END, ?::bigint - i, ?::bigint - i, ?::bigint - i
         FROM generate_series(?::int, ?::int) AS i`,
        [ENDPOINT, MERCHANT, status, status, NOW, NOW, NOW, NOW, from, from + count - 1],
      );
    await insertDeliveries(0, 40_000, 'delivered');
    await k.raw('ANALYZE webhook_deliveries');
    // The backlog arrives after the statistics were taken, as it does between autovacuum's analyses.
    await insertDeliveries(40_000, 2_000, 'pending');
  });

  after(async () => {
    await test?.drop();
  });

  for (const mode of ['force_custom_plan', 'force_generic_plan']) {
    it(`claims 16 deliveries through webhook_deliveries_pkey, not the due index (${mode})`, async () => {
      const types = Array.from({ length: CLAIMS }, () => ['text', 'text', 'bigint', 'bigint']).flat();
      const values = Array.from({ length: CLAIMS }, (_, i) => [
        `whd_${String(40_000 + i * 100).padStart(20, '0')}`,
        `owner-${i}`,
        NOW,
        NOW + 30_000,
      ]).flat();
      const scans = await deliveryScans(test.db.knex, stepSql(CLAIMS, 0), types, values, mode);
      assert.deepEqual(scans, ['Index Scan webhook_deliveries_pkey']);
    });
  }

  it('claims exactly the pending, due and unleased deliveries named (the rewritten condition still filters)', async () => {
    const k = test.db.knex;
    const pending = `whd_${String(40_001).padStart(20, '0')}`;
    const delivered = `whd_${String(1).padStart(20, '0')}`;
    const leased = `whd_${String(40_002).padStart(20, '0')}`;
    await k('webhook_deliveries')
      .where({ id: leased })
      .update({ lease_until: NOW + 5000, lease_owner: 'other' });
    const ids = [pending, delivered, leased];
    const values = ids.flatMap((id, i) => [id, `owner-${i}`, NOW, NOW + 30_000]);
    const padded = [...values, ...Array.from({ length: 4 }, () => null)];
    const result = (await k.raw(stepSql(4, 0).replace(/\$\d+/g, '?'), padded as Knex.RawBinding[])) as {
      rows: { owner: string }[];
    };
    assert.deepEqual(
      result.rows.map((r) => r.owner),
      ['owner-0'],
    );
  });
});
