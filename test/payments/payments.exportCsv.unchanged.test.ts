import assert from 'node:assert/strict';
import type { Runtime } from '@paygate/server';
import { insertPayments, type PaymentRow } from '../../server/src/db/queries/payments.js';
import { newId } from '../../server/src/ids.js';
import { buyerContext } from '../../server/src/payments/details.js';
import { exportPaymentsCsv } from '../../server/src/payments/paymentExport.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { testClock, testRuntime } from '../helpers/runtime.js';

/**
 * The payments export's bytes, pinned: the lines below were produced by the export before its row path was made
 * faster (docs/decisions.md §24.16), so a change to its speed cannot quietly change the file a merchant downloads.
 * The rows go through the database, as stored (the stages as JSON text, the buyer sealed), on both databases.
 */
const at = Date.UTC(2026, 10, 28, 12, 30, 15, 250);

type Stages = Partial<Record<'processing' | 'success' | 'settled' | 'refunded', object>>;
interface Spec {
  over: Partial<PaymentRow>;
  stages: Stages;
  buyer: object | null;
}
const spec = (over: Partial<PaymentRow>, stages: Stages = {}, buyer: object | null = null): Spec => ({
  over,
  stages,
  buyer,
});

const paid = spec(
  {
    status: 'succeeded',
    reference_id: 'café "x", y',
    description: 'Two "mugs",\nshipped',
    line_items: JSON.stringify([{ name: 'Mug, =blue', quantity: 2, unit_amount: '625' }]),
    metadata: JSON.stringify({ order: '=1+2', note: 'é' }),
  },
  {
    processing: {
      chain_caip2: 'eip155:31337',
      fee: { total_amount: { value: '37', unit: 'iso4217/USD' } },
    },
    success: { succeeded_at: '2026-11-28T12:31:00.000Z', tx_id: '0xabc' },
    settled: { settled_at: '2026-11-29T00:00:00.000Z' },
    refunded: { refunded_at: '2026-11-30T08:00:00.000Z' },
  },
  { email: 'ann@example.com', name: '@Ann "A"' },
);

const cases: [string, Spec, string][] = [
  [
    'a paid, settled and refunded payment with what was sold',
    paid,
    '"pay_paid","café ""x"", y","succeeded","1250","iso4217/USD","12.50 USD","2026-11-28T12:30:15.250Z","2026-11-28T12:31:00.000Z","2026-11-29T00:00:00.000Z","2026-11-30T08:00:00.000Z","37","iso4217/USD","eip155:31337","0xabc","Two ""mugs"",\nshipped","[{""name"":""Mug, =blue"",""quantity"":2,""unit_amount"":""625""}]","{""order"":""=1+2"",""note"":""é""}","ann@example.com","\'@Ann ""A"""\r\n',
  ],
  [
    'an open payment in a zero-digit currency with a formula reference',
    spec({ reference_id: '=HYPERLINK("http://x")', amount_unit: 'iso4217/JPY', amount_value: '500' }),
    '"pay_jpy","\'=HYPERLINK(""http://x"")","requires_action","500","iso4217/JPY","500 JPY","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
  [
    'a three-digit currency below one, a tab and a minus reference',
    spec({ reference_id: '\t-5', amount_unit: 'iso4217/KWD', amount_value: '5', status: 'failed' }),
    '"pay_kwd","\'\t-5","failed","5","iso4217/KWD","0.005 KWD","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
  [
    'a unit that is not a currency, empty stored details, a buyer with an email only',
    spec(
      {
        reference_id: '+1\r',
        amount_unit: 'eip155:1/erc20:0xA0b8',
        amount_value: '1000000',
        line_items: '[]',
        metadata: '{}',
        description: '',
      },
      {},
      { email: 'b@example.com' },
    ),
    '"pay_tok","\'+1\r","requires_action","1000000","eip155:1/erc20:0xA0b8","1000000 eip155:1/erc20:0xA0b8","2026-11-28T12:30:15.250Z","","","","","","","","","","","b@example.com",""\r\n',
  ],
  [
    'a unit that names no active currency and a zero amount',
    spec({ amount_unit: 'iso4217/XAU', amount_value: '0', reference_id: 'plain' }),
    '"pay_xau","plain","requires_action","0","iso4217/XAU","0 iso4217/XAU","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
];

describeEachDatabase('payments.exportCsv', (get) => {
  let runtime: Runtime;
  let merchantId: string;
  const ids: string[] = [];

  before(async () => {
    runtime = await testRuntime({ db: get().db, clock: testClock(at) });
    merchantId = await seedMerchant(get().db.knex);
    const knex = get().db.knex;
    for (const [, { over, stages, buyer }] of cases) {
      const id = newId.payment();
      ids.push(id);
      await insertPayments(knex, [
        {
          id,
          merchant_id: merchantId,
          live: false,
          status: 'requires_action',
          state_version: 0,
          reference_id: 'order-1',
          amount_unit: 'iso4217/USD',
          amount_value: '1250',
          success_url: null,
          error_url: null,
          // Each a second apart, the first newest: the export's order is the cases' order.
          created_at: at - ids.length * 1000,
          expires_at: at + 3_600_000,
          updated_at: at,
          description: null,
          line_items: null,
          metadata: null,
          buyer_sealed: buyer ? runtime.secretBox.seal(JSON.stringify(buyer), buyerContext(id)) : null,
          ...over,
        },
      ]);
      const stageText = Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, JSON.stringify(v)]));
      if (Object.keys(stageText).length) await knex('payments').where({ id }).update(stageText);
    }
  });
  after(() => runtime.close());

  it('exportCsv writes the same bytes as before the export read fewer columns, row by row', async () => {
    let text = '';
    for await (const page of exportPaymentsCsv(runtime, { merchantId, live: false }, {})) text += page;
    const lines = text.split(/(?<=\r\n)(?="pay_)/);
    assert.equal(lines.length, cases.length + 1);
    cases.forEach(([what, , line], i) => {
      const created = new Date(at - (i + 1) * 1000).toISOString();
      const expected = line.replace(/^"[^"]*"/, `"${ids[i]}"`).replace('"2026-11-28T12:30:15.250Z"', `"${created}"`);
      assert.equal(lines[i + 1], expected, what);
    });
  });
});
