import assert from 'node:assert/strict';
import type { PaymentExportRow } from '../../server/src/db/queries/paymentExportRows.js';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { buyerContext } from '../../server/src/payments/details.js';
import { paymentCsvLine } from '../../server/src/payments/paymentExport.js';

/**
 * The payments export's bytes, pinned: the lines below were produced by the export before its row path was made
 * faster (docs/decisions.md §24.16), so a change to the speed cannot quietly change the file a merchant downloads.
 */
const box = new SecretBox([{ id: 'k1', key: Buffer.alloc(32, 7) }]);
const at = Date.UTC(2026, 10, 28, 12, 30, 15, 250);

type Stages = Partial<Record<'processing' | 'success' | 'settled' | 'refunded', object>>;

/** A row as the export reads it: the stages as their stored JSON text. */
function row(id: string, over: Partial<PaymentExportRow>, stages: Stages = {}): PaymentExportRow {
  const text = (s: object | undefined) => (s === undefined ? null : JSON.stringify(s));
  return {
    id,
    status: 'requires_action',
    reference_id: 'order-1',
    amount_unit: 'iso4217/USD',
    amount_value: '1250',
    created_at: at,
    processing: text(stages.processing),
    success: text(stages.success),
    settled: text(stages.settled),
    refunded: text(stages.refunded),
    description: null,
    line_items: null,
    metadata: null,
    buyer_sealed: null,
    ...over,
  };
}

const paid = row(
  'pay_paid',
  {
    status: 'succeeded',
    reference_id: 'café "x", y',
    description: 'Two "mugs",\nshipped',
    line_items: JSON.stringify([{ name: 'Mug, =blue', quantity: 2, unit_amount: '625' }]),
    metadata: JSON.stringify({ order: '=1+2', note: 'é' }),
    buyer_sealed: box.seal(JSON.stringify({ email: 'ann@example.com', name: '@Ann "A"' }), buyerContext('pay_paid')),
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
);

const cases: [string, PaymentExportRow, string][] = [
  [
    'a paid, settled and refunded payment with what was sold',
    paid,
    '"pay_paid","café ""x"", y","succeeded","1250","iso4217/USD","12.50 USD","2026-11-28T12:30:15.250Z","2026-11-28T12:31:00.000Z","2026-11-29T00:00:00.000Z","2026-11-30T08:00:00.000Z","37","iso4217/USD","eip155:31337","0xabc","Two ""mugs"",\nshipped","[{""name"":""Mug, =blue"",""quantity"":2,""unit_amount"":""625""}]","{""order"":""=1+2"",""note"":""é""}","ann@example.com","\'@Ann ""A"""\r\n',
  ],
  [
    'an open payment in a zero-digit currency with a formula reference',
    row('pay_jpy', { reference_id: '=HYPERLINK("http://x")', amount_unit: 'iso4217/JPY', amount_value: '500' }),
    '"pay_jpy","\'=HYPERLINK(""http://x"")","requires_action","500","iso4217/JPY","500 JPY","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
  [
    'a three-digit currency below one, a tab and a minus reference',
    row('pay_kwd', { reference_id: '\t-5', amount_unit: 'iso4217/KWD', amount_value: '5', status: 'failed' }),
    '"pay_kwd","\'\t-5","failed","5","iso4217/KWD","0.005 KWD","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
  [
    'a unit that is not a currency, empty stored details, a buyer with an email only',
    row('pay_tok', {
      reference_id: '+1\r',
      amount_unit: 'eip155:1/erc20:0xA0b8',
      amount_value: '1000000',
      line_items: '[]',
      metadata: '{}',
      description: '',
      buyer_sealed: box.seal(JSON.stringify({ email: 'b@example.com' }), buyerContext('pay_tok')),
    }),
    '"pay_tok","\'+1\r","requires_action","1000000","eip155:1/erc20:0xA0b8","1000000 eip155:1/erc20:0xA0b8","2026-11-28T12:30:15.250Z","","","","","","","","","","","b@example.com",""\r\n',
  ],
  [
    'a unit that names no active currency, a zero amount and a creation time as bigint text',
    row('pay_xau', { amount_unit: 'iso4217/XAU', amount_value: '0', reference_id: 'plain', created_at: String(at) }),
    '"pay_xau","plain","requires_action","0","iso4217/XAU","0 iso4217/XAU","2026-11-28T12:30:15.250Z","","","","","","","","","","","",""\r\n',
  ],
];

describe('payments.exportCsv', () => {
  for (const [what, payment, line] of cases) {
    it(`exportCsv writes the same bytes as before for ${what}`, () => {
      assert.equal(paymentCsvLine(payment, box), line);
    });
  }
});
