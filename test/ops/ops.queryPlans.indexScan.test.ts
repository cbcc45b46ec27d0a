/**
 * The hot reads of a large merchant use an index (docs/decisions.md §24, issue 36): on PostgreSQL, with a few
 * thousand rows spread over many merchants and ANALYZE run, the plan of the statement each query function really
 * sends (captured from knex's `query` event, never a hand-copied SQL) names the index meant for it and scans no table
 * sequentially. A change that loses an index, or rewrites a query so that its index no longer fits, fails here.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { pruneAttemptBatch } from '../../server/src/db/queries/attemptRetention.js';
import { listAuditRows } from '../../server/src/db/queries/auditRows.js';
import { ledgerPage } from '../../server/src/db/queries/ledgerEntries.js';
import { EXPORT_PAGE_SIZE } from '../../server/src/payments/paymentExport.js';
import { listPayments } from '../../server/src/db/queries/payments.js';
import { listPayoutRows } from '../../server/src/db/queries/payoutRows.js';
import { listAttemptsOf, listPaymentDeliveries } from '../../server/src/db/queries/timelineDeliveries.js';
import { listAttempts, listDeliveries } from '../../server/src/db/queries/webhooks.js';
import { RETENTION_BATCH } from '../../server/src/webhooks/retention.js';
import * as rollupMigration from '../../server/src/db/migrations/018_payment_day_totals.js';
import { readDayTotals } from '../../server/src/db/queries/paymentDayTotals.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { explainNodes, statementsOf, type PlanNode } from '../helpers/plans.js';

const MERCHANTS = 12;
const BIG = 'mer_scalebig000000000';
const STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'expired', 'cancelled'];
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const N = 6000;
/** A merchant with one ledger row in 24, the rest of the table being another's. */
const SMALL = 'mer_scaleplan00000005';

const merchantOf = (i: number) => (i % 3 === 0 ? `mer_scaleplan${String(i % MERCHANTS).padStart(8, '0')}` : BIG);
const paymentId = (i: number) => `pay_${String(i).padStart(24, '0')}`;

/** The plan of the one read `run` sends to `table`. */
async function planOf(knex: Knex, table: string, run: () => Promise<unknown>): Promise<PlanNode[]> {
  const sent = await statementsOf(knex, run);
  const ofTable = sent.filter((q) => q.sql.startsWith('select') && q.sql.includes(`from "${table}"`));
  assert.equal(ofTable.length, 1, `one statement on ${table}: ${JSON.stringify(sent)}`);
  return explainNodes(knex, ofTable[0]!);
}

function assertIndexScan(nodes: PlanNode[], table: string, index: string | RegExp): void {
  const shown = JSON.stringify(nodes.map((n) => [n['Node Type'], n['Relation Name'], n['Index Name']]));
  assert.deepEqual(
    nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']),
    [],
    `no sequential scan: ${shown}`,
  );
  assert.ok(
    nodes.some(
      (n) =>
        /Index/.test(n['Node Type']) &&
        (n['Relation Name'] === table || n['Node Type'] === 'Bitmap Index Scan') &&
        (typeof index === 'string' ? n['Index Name'] === index : index.test(n['Index Name'] ?? '')),
    ),
    `${table} read through ${index}: ${shown}`,
  );
}

async function batched(knex: Knex, table: string, rows: Record<string, unknown>[]): Promise<void> {
  await knex.batchInsert(table, rows, 500);
}

describe('ops.queryPlans hot reads use their index [postgres]', function () {
  this.timeout(120_000);
  let test: TestDatabase;
  const knex = () => test.db.knex;

  before(async () => {
    test = await createTestDatabase('postgres');
    const k = knex();
    await seedMerchant(k, BIG);
    for (let m = 0; m < MERCHANTS; m++) await seedMerchant(k, `mer_scaleplan${String(m).padStart(8, '0')}`);
    const at = (i: number) => T0 + Math.floor((i * 400 * DAY) / N);
    await batched(
      k,
      'payments',
      Array.from({ length: N }, (_, i) => ({
        id: paymentId(i),
        merchant_id: merchantOf(i),
        live: i % 5 !== 0,
        status: STATUSES[i % STATUSES.length],
        state_version: 1,
        reference_id: `order-${i}`,
        amount_unit: 'USD',
        amount_value: '1000',
        created_at: at(i),
        expires_at: at(i) + 900_000,
        updated_at: at(i),
      })),
    );
    for (const merchant of [
      BIG,
      ...Array.from({ length: MERCHANTS }, (_, m) => `mer_scaleplan${String(m).padStart(8, '0')}`),
    ]) {
      for (const mode of ['test', 'live']) {
        await k('webhook_endpoints').insert({
          id: `we_${merchant}_${mode}`,
          merchant_id: merchant,
          mode,
          url: 'https://example.com/hook',
          event_types: '[]',
          enabled: true,
          secret_sealed: 'x',
          secret_rotated_at: 0,
          created_at: 0,
        });
      }
    }
    const endpointOf = (merchant: string, live: boolean) => `we_${merchant}_${live ? 'live' : 'test'}`;
    await batched(
      k,
      'webhook_deliveries',
      Array.from({ length: N }, (_, i) => {
        const p = i % 2000;
        return {
          id: `whd_${String(i).padStart(20, '0')}`,
          endpoint_id: endpointOf(merchantOf(p), p % 5 !== 0),
          event_id: `evt_${String(i).padStart(24, '0')}`,
          event_type: 'payment.succeeded',
          payment_id: paymentId(p),
          merchant_id: merchantOf(p),
          live: p % 5 !== 0,
          status: i % 50 === 0 ? 'failed' : 'delivered',
          trigger: 'event',
          attempt_count: 1,
          created_at: at(i),
          delivered_at: at(i),
          updated_at: at(i),
        };
      }),
    );
    await batched(
      k,
      'webhook_attempts',
      // Up to eight attempts per delivery in production, each with the first 4 KB of the answer; four and 1 KB here.
      Array.from({ length: 4 * N }, (_, i) => ({
        delivery_id: `whd_${String(i % N).padStart(20, '0')}`,
        attempt: Math.floor(i / N) + 1,
        started_at: at(i % N),
        status: 500,
        latency_ms: 5,
        response_body: 'x'.repeat(1024),
        delivered: false,
      })),
    );
    await batched(
      k,
      'ledger_entries',
      // Four times the other tables: the export pages a merchant's ledger, the largest of its histories.
      Array.from({ length: 4 * N }, (_, i) => ({
        entry_key: `received:${i}`,
        kind: ['received', 'fee', 'payable'][i % 3],
        merchant_id: i % 24 === 5 ? SMALL : BIG,
        live: true,
        mode: 'collected',
        chain_caip2: 'eip155:1',
        asset_caip19: 'eip155:1/erc20:0x0',
        amount: '1000',
        payment_id: paymentId(i),
        created_at: at(i),
      })),
    );
    await batched(
      k,
      'audit_log',
      Array.from({ length: N }, (_, i) => ({
        id: `aud_${String(i).padStart(20, '0')}`,
        merchant_id: merchantOf(i),
        mode: 'live',
        at: at(i),
        actor_kind: 'user',
        actor_id: 'usr_x',
        action: 'payment.refund',
      })),
    );
    await batched(
      k,
      'payouts',
      Array.from({ length: N }, (_, i) => ({
        id: `po_${String(i).padStart(20, '0')}`,
        merchant_id: merchantOf(i),
        live: i % 5 !== 0,
        chain_caip2: 'eip155:1',
        asset_caip19: 'eip155:1/erc20:0x0',
        gross: '1000',
        fee: '10',
        net: '990',
        destination: '0x0',
        state: 'final',
        details: '{}',
        created_at: at(i),
      })),
    );
    // The overview's rollup, built from these payments as migration 018 builds it on an upgrade.
    await rollupMigration.up(k);
    await k.raw('ANALYZE');
  });
  after(() => test?.drop());

  const scope = { merchantId: BIG, live: true, limit: 20 };

  it('the payments list, newest first, reads payments_list_idx', async () => {
    assertIndexScan(
      await planOf(knex(), 'payments', () => listPayments(knex(), scope)),
      'payments',
      'payments_list_idx',
    );
  });

  // A deep page: the cursor must bound the index scan, not filter every newer row the scan walks past.
  it('a deep cursor page of the payments list and of the delivery log starts at its cursor inside the index', async () => {
    const cursor = { created_at: T0 + 300 * DAY, id: paymentId(4500) };
    const payments = await planOf(knex(), 'payments', () => listPayments(knex(), { ...scope, startingAfter: cursor }));
    assertIndexScan(payments, 'payments', 'payments_list_idx');
    assert.match(payments.find((n) => n['Index Name'])!['Index Cond'] ?? '', /created_at/, JSON.stringify(payments));
    const log = await planOf(knex(), 'webhook_deliveries', () =>
      listDeliveries(knex(), { ...scope, startingAfter: { created_at: cursor.created_at, id: 'whd_x' } }),
    );
    assertIndexScan(log, 'webhook_deliveries', 'webhook_deliveries_mode_list_idx');
    assert.match(log.find((n) => n['Index Name'])!['Index Cond'] ?? '', /created_at/, JSON.stringify(log));
  });

  it('the payments list filtered by referenceId reads payments_reference_idx', async () => {
    const nodes = await planOf(knex(), 'payments', () => listPayments(knex(), { ...scope, referenceId: 'order-4001' }));
    assertIndexScan(nodes, 'payments', 'payments_reference_idx');
  });

  it('the payments list filtered by status reads payments_status_list_idx', async () => {
    const nodes = await planOf(knex(), 'payments', () => listPayments(knex(), { ...scope, status: 'failed' }));
    assertIndexScan(nodes, 'payments', 'payments_status_list_idx');
  });

  it('a payment timeline page and the delivery log by payment read webhook_deliveries_payment_idx', async () => {
    const timelinePage = await planOf(knex(), 'webhook_deliveries', () =>
      listPaymentDeliveries(knex(), {
        merchantId: BIG,
        live: true,
        paymentId: paymentId(1),
        startingAfter: { created_at: T0, id: 'whd_0' },
        limit: 101,
      }),
    );
    assertIndexScan(timelinePage, 'webhook_deliveries', 'webhook_deliveries_payment_idx');
    const log = await planOf(knex(), 'webhook_deliveries', () =>
      listDeliveries(knex(), { ...scope, paymentId: paymentId(1), limit: 100 }),
    );
    assertIndexScan(log, 'webhook_deliveries', 'webhook_deliveries_payment_idx');
  });

  it('the delivery log reads webhook_deliveries_mode_list_idx, and by status webhook_deliveries_status_list_idx', async () => {
    assertIndexScan(
      await planOf(knex(), 'webhook_deliveries', () => listDeliveries(knex(), scope)),
      'webhook_deliveries',
      'webhook_deliveries_mode_list_idx',
    );
    assertIndexScan(
      await planOf(knex(), 'webhook_deliveries', () => listDeliveries(knex(), { ...scope, status: 'failed' })),
      'webhook_deliveries',
      'webhook_deliveries_status_list_idx',
    );
  });

  it("a delivery's attempts, and a timeline page's, read their unique (delivery_id, attempt) index", async () => {
    const one = await planOf(knex(), 'webhook_attempts', () => listAttempts(knex(), `whd_${'0'.repeat(19)}7`));
    assertIndexScan(one, 'webhook_attempts', 'webhook_attempts_delivery_id_attempt_unique');
    const ids = Array.from({ length: 100 }, (_, i) => `whd_${String(i * 7).padStart(20, '0')}`);
    const page = await planOf(knex(), 'webhook_attempts', () => listAttemptsOf(knex(), ids));
    assertIndexScan(page, 'webhook_attempts', 'webhook_attempts_delivery_id_attempt_unique');
  });

  // A small merchant among a large one: walking the primary key would read everyone's rows to find its few. At this
  // size the planner may prefer the older (merchant_id, live, kind) index and a sort of the merchant's rows; either
  // index led by the merchant keeps the cost of a page with the merchant's own history.
  it("the ledger export's keyset page reads an index led by the merchant, not the whole table", async () => {
    const nodes = await planOf(knex(), 'ledger_entries', () =>
      ledgerPage(knex(), { merchantId: SMALL, live: true, afterId: 2 * N, limit: EXPORT_PAGE_SIZE }),
    );
    assertIndexScan(nodes, 'ledger_entries', /^ledger_entries_(page_idx|merchant_id_live_kind_index)$/);
  });

  it('the audit log page reads audit_log_list_idx', async () => {
    const nodes = await planOf(knex(), 'audit_log', () => listAuditRows(knex(), BIG, { limit: 20 }));
    assertIndexScan(nodes, 'audit_log', 'audit_log_list_idx');
  });

  it('the payouts list reads payouts_list_idx', async () => {
    const nodes = await planOf(knex(), 'payouts', () => listPayoutRows(knex(), scope));
    assertIndexScan(nodes, 'payouts', 'payouts_list_idx');
  });

  it('a deep cursor page of the audit log and of the payouts list starts at its cursor inside the index', async () => {
    const at = T0 + 300 * DAY;
    const audit = await planOf(knex(), 'audit_log', () =>
      listAuditRows(knex(), BIG, { limit: 20, startingAfter: { at, id: 'aud_x' } }),
    );
    assertIndexScan(audit, 'audit_log', 'audit_log_list_idx');
    assert.match(audit.find((n) => n['Index Name'])!['Index Cond'] ?? '', /"at"|\bat\b/, JSON.stringify(audit));
    const payouts = await planOf(knex(), 'payouts', () =>
      listPayoutRows(knex(), { ...scope, startingAfter: { createdAt: at, id: 'po_x' } }),
    );
    assertIndexScan(payouts, 'payouts', 'payouts_list_idx');
    assert.match(payouts.find((n) => n['Index Name'])!['Index Cond'] ?? '', /created_at/, JSON.stringify(payouts));
  });

  // A filter the list index cannot bound would walk the merchant's whole history to fill (or not fill) a page.
  it('the delivery log by event reads webhook_deliveries_event_idx, by event type webhook_deliveries_type_list_idx', async () => {
    const byEvent = await planOf(knex(), 'webhook_deliveries', () =>
      listDeliveries(knex(), { ...scope, eventId: `evt_${String(7).padStart(24, '0')}` }),
    );
    assertIndexScan(byEvent, 'webhook_deliveries', 'webhook_deliveries_event_idx');
    const byType = await planOf(knex(), 'webhook_deliveries', () =>
      listDeliveries(knex(), { ...scope, eventType: 'payment.failed' }),
    );
    assertIndexScan(byType, 'webhook_deliveries', 'webhook_deliveries_type_list_idx');
  });

  it('the payments list of succeeded payments not yet settled reads payments_unsettled_idx', async () => {
    const nodes = await planOf(knex(), 'payments', () => listPayments(knex(), { ...scope, settled: false }));
    assertIndexScan(nodes, 'payments', 'payments_unsettled_idx');
  });

  it("the overview reads its 30 days of the rollup through the rollup's primary key, not the payments", async () => {
    const today = Math.floor((T0 + 400 * DAY) / DAY);
    const nodes = await planOf(knex(), 'payment_day_totals', () =>
      readDayTotals(knex(), { merchantId: BIG, live: true }, today - 29, today),
    );
    assertIndexScan(nodes, 'payment_day_totals', 'payment_day_totals_pkey');
  });

  // Last: it deletes the oldest tenth of the attempts, as the job would.
  it('a webhook retention batch finds its attempts through webhook_attempts_started_idx', async () => {
    const nodes = await planOf(knex(), 'webhook_attempts', () =>
      pruneAttemptBatch(knex(), T0 + 40 * DAY, T0 + 400 * DAY, RETENTION_BATCH),
    );
    assertIndexScan(nodes, 'webhook_attempts', 'webhook_attempts_started_idx');
  });
});
