import assert from 'node:assert/strict';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { paymentExportPageSize } from '../../server/src/db/queries/paymentExportRows.js';
import { newId } from '../../server/src/ids.js';
import { exportPaymentsCsv } from '../../server/src/payments/paymentExport.js';
import { describeEachDatabase } from '../helpers/db.js';
import { simulate } from '../merchant/harness.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { parseCsv } from './merchantData.js';

const HEADER = [
  'payment_id',
  'reference_id',
  'status',
  'amount_value',
  'amount_unit',
  'amount',
  'created_at',
  'paid_at',
  'settled_at',
  'refunded_at',
  'fee_value',
  'fee_unit',
  'chain',
  'tx_id',
  'description',
  'line_items',
  'metadata',
  'buyer_email',
  'buyer_name',
];
/** The columns of what was sold, empty for payments created without it. */
const NOTHING_SOLD = ['', '', '', '', ''];

describeEachDatabase('dashboard.exportPayments', (get) => {
  let d: Dashboard;
  let m: Merchant;
  const t0 = Date.UTC(2026, 1, 18, 10, 0, 0);
  const iso = (ms: number) => new Date(ms).toISOString();
  let ids: Record<string, string>;

  before(async () => {
    d = await startDashboard({ db: get().db });
    m = await d.merchant();
    const create = async (referenceId: string, value: string, at: number) => {
      d.harness.clock.set(at);
      const body = { amount: { unit: 'iso4217/USD', value }, referenceId, expiresAt: t0 / 1000 + 86_400 };
      return (await expectJson<{ paymentId: string }>(await m.call('POST', '/v1/merchant/payment', { body }), 201))
        .paymentId;
    };
    ids = {
      paid: await create('plain', '1250', t0),
      comma: await create('a,b "quoted"', '5', t0 + 1000),
      formula: await create('=HYPERLINK("http://x")', '100', t0 + 2000),
      minus: await create('-5+3', '7', t0 + 3000),
    };
    d.harness.clock.set(t0 + 10_000);
    const h = d.harness.withHeaders({ 'Api-Key': m.account.testKey, 'Merchant-Id': m.account.merchantId });
    await simulate(h, ids.paid!, 'processing', 'succeeded');
    await d.drain();
    // References the API refuses (control characters) but older or imported rows may hold: written directly.
    ids.newline = newId.payment();
    ids.tab = newId.payment();
    const row = (id: string, reference_id: string, at: number, amount_unit: string, amount_value: string) => ({
      id,
      merchant_id: m.account.merchantId,
      live: false,
      status: 'requires_action' as const,
      state_version: 0,
      reference_id,
      amount_unit,
      amount_value,
      success_url: null,
      error_url: null,
      created_at: at,
      expires_at: t0 + 86_400_000,
      updated_at: at,
    });
    await insertPayments(d.harness.runtime.db.knex, [
      row(ids.newline, 'line1\nline2', t0 + 4000, 'iso4217/JPY', '500'),
      row(ids.tab, '\tcmd', t0 + 5000, 'iso4217/USD', '0'),
    ]);
  });
  after(() => d.close());

  const exportCsv = (query = '', live = false) => m.call('GET', `/v1/dashboard/payments/export${query}`, { live });

  it('exportPayments streams every payment as RFC 4180 CSV, row by row, with the formula guard', async () => {
    const res = await exportCsv();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8$/);
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="payments-test-2026-02-18.csv"');
    const text = await res.text();
    assert.ok(text.endsWith('\r\n'));
    const paid = await expectJson<{
      success: { succeeded_at: string; tx_id: string };
      settled: { settled_at: string };
      processing: { chain_caip2: string };
    }>(await m.call('GET', `/v1/dashboard/payments/${ids.paid}`), 200);
    const rows = parseCsv(text);
    const open = (id: string, ref: string, value: string, unit: string, amount: string, at: number) => [
      id,
      ref,
      'requires_action',
      value,
      unit,
      amount,
      iso(at),
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      ...NOTHING_SOLD,
    ];
    assert.deepEqual(rows, [
      HEADER,
      open(ids.tab!, "'\tcmd", '0', 'iso4217/USD', '0.00 USD', t0 + 5000),
      open(ids.newline!, 'line1\nline2', '500', 'iso4217/JPY', '500 JPY', t0 + 4000),
      open(ids.minus!, "'-5+3", '7', 'iso4217/USD', '0.07 USD', t0 + 3000),
      open(ids.formula!, `'=HYPERLINK("http://x")`, '100', 'iso4217/USD', '1.00 USD', t0 + 2000),
      open(ids.comma!, 'a,b "quoted"', '5', 'iso4217/USD', '0.05 USD', t0 + 1000),
      [
        ids.paid!,
        'plain',
        'succeeded',
        '1250',
        'iso4217/USD',
        '12.50 USD',
        iso(t0),
        paid.success.succeeded_at,
        paid.settled.settled_at,
        '',
        '',
        '',
        paid.processing.chain_caip2,
        paid.success.tx_id,
        ...NOTHING_SOLD,
      ],
    ]);
    // On the wire: every field quoted, quotes doubled, the line break inside its quotes.
    assert.ok(text.startsWith('"payment_id","reference_id","status",'));
    assert.ok(text.includes('"a,b ""quoted"""'));
    assert.ok(text.includes('"line1\nline2"'));
    assert.ok(text.includes(`"'=HYPERLINK(""http://x"")"`));
  });

  it('exportPayments applies the list’s filters, and exports the request’s mode only', async () => {
    const rows = parseCsv(await (await exportCsv('?referenceId=plain&status=succeeded&settled=true')).text());
    assert.deepEqual(
      rows.map((r) => r[0]),
      ['payment_id', ids.paid],
    );
    const createdWindow = `?createdGte=${t0 / 1000 + 1}&createdLt=${t0 / 1000 + 3}`;
    assert.deepEqual(
      parseCsv(await (await exportCsv(createdWindow)).text()).map((r) => r[0]),
      ['payment_id', ids.formula, ids.comma],
    );
    const live = await exportCsv('', true);
    assert.equal(live.headers.get('content-disposition'), 'attachment; filename="payments-live-2026-02-18.csv"');
    assert.deepEqual(parseCsv(await live.text()), [HEADER]);
  });

  it('exportPayments reads in pages: small pages give the same file as one', async () => {
    const whole = await (await exportCsv()).text();
    let paged = '';
    const scope = { merchantId: m.account.merchantId, live: false };
    for await (const chunk of exportPaymentsCsv(d.harness.runtime, scope, {}, 2)) paged += chunk;
    assert.equal(paged, whole);
  });

  it('exportPayments streams more than a page over HTTP, every row once, newest first', async () => {
    const n = await d.merchant();
    // Two full pages and part of a third, at this database's page size.
    const count = 2 * paymentExportPageSize(d.harness.runtime.db.knex) + 234;
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId.payment(),
      merchant_id: n.account.merchantId,
      live: false,
      status: 'succeeded' as const,
      state_version: 0,
      reference_id: `bulk_${i}`,
      amount_unit: 'iso4217/USD',
      amount_value: String(i + 1),
      success_url: null,
      error_url: null,
      created_at: t0 - 1_000_000 + i,
      expires_at: t0 + 86_400_000,
      updated_at: t0,
    }));
    for (let i = 0; i < rows.length; i += 200) await insertPayments(d.harness.runtime.db.knex, rows.slice(i, i + 200));
    const res = await n.call('GET', '/v1/dashboard/payments/export');
    const parsed = parseCsv(await res.text());
    assert.equal(parsed.length, count + 1);
    assert.deepEqual(
      parsed.slice(1).map((r) => r[0]),
      rows.map((r) => r.id).reverse(),
    );
  });

  it('exportPayments refuses what the list refuses, as JSON: a bad filter or a paging parameter', async () => {
    const res = await exportCsv('?status=paid');
    await expectError(res.clone(), 400, 'params_validation');
    assert.equal(((await res.json()) as { param?: string }).param, 'status');
    await expectError(await exportCsv('?limit=5'), 400, 'invalid_params');
  });
});
