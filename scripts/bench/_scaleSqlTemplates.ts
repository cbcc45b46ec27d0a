/**
 * The SQL pieces of the scale benchmark's in-database fill (scripts/bench/_scaleSqlFill.ts): the app's own JSON
 * (each status's stage objects and the webhook envelope of `toSnapshot`) made once in JavaScript for a template
 * payment whose values are recognisable tokens, then turned into a SQL concatenation that puts each row's values in
 * the tokens' places. So the database writes, per row, exactly the text the app would have written, without a
 * round trip per row.
 */
import type { PaymentRow } from '../../server/src/db/queries/payments.js';
import { noStages, type PaymentStages } from '../../server/src/db/queries/paymentStages.js';

/** The fill writes no buyers, so nothing it makes is ever opened. */
export const noBuyers = {
  open: (): never => {
    throw new Error('the scale fill has no sealed buyers');
  },
};
import { toSnapshot, WEBHOOK_API_VERSION } from '../../server/src/payments/snapshot.js';

export type Dialect = 'postgres' | 'sqlite';

const iso = (ms: number) => new Date(ms).toISOString();
export const ASSET = 'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3';
export const BUYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Each status's stage objects, as the server writes them (also used by the JavaScript-written rows). */
export function stagesOf(
  status: PaymentRow['status'],
  id: string,
  amount: string,
  at: number,
  settled: boolean,
): PaymentStages {
  const stages = noStages();
  const money = { unit: ASSET, value: `${amount}0000` };
  if (PATHS[status].includes('processing')) {
    stages.processing = {
      processing_at: iso(at + 30_000),
      option_amount: money,
      fee: null,
      settlement_amount: money,
      buyer_caip10: `eip155:31337:${BUYER}`,
      chain_caip2: 'eip155:31337',
    };
  }
  const tx = `0x${id.slice(4).padEnd(64, '0').slice(0, 64)}`;
  if (status === 'succeeded') stages.success = { succeeded_at: iso(at + 60_000), tx_id: tx };
  if (status === 'failed') stages.failed = { failed_at: iso(at + 60_000), failure_reason: 'The transaction reverted.' };
  if (status === 'expired') stages.expired = { expired_at: iso(at + 900_000) };
  if (status === 'cancelled')
    stages.cancelled = { cancelled_at: iso(at + 60_000), cancelled_by: 'buyer', cancellation_reason: null };
  if (settled) stages.settled = { settled_at: iso(at + 120_000), settlement_amount: money, tx_id: tx };
  return stages;
}

export const PATHS: Record<PaymentRow['status'], PaymentRow['status'][]> = {
  requires_action: [],
  processing: ['processing'],
  succeeded: ['processing', 'succeeded'],
  failed: ['processing', 'failed'],
  expired: ['expired'],
  cancelled: ['cancelled'],
};
export const EVENT_TYPE: Record<string, string> = {
  processing: 'payment.processing',
  succeeded: 'payment.succeeded',
  failed: 'payment.failed',
  expired: 'payment.expired',
  cancelled: 'payment.failed',
  settled: 'payment.settled',
};

/** The event types of a payment's history, `payment.created` first (its version 0). */
export function eventTypes(status: PaymentRow['status'], settled: boolean): string[] {
  return ['payment.created', ...PATHS[status].map((p) => EVENT_TYPE[p]!), ...(settled ? [EVENT_TYPE.settled!] : [])];
}

export const STAGE_COLUMNS = ['processing', 'success', 'failed', 'cancelled', 'expired', 'settled'] as const;

/** A status and whether it settled: the fill's kinds of payment, with their shares per 1,000 (as a shop sees them). */
export interface Variant {
  status: PaymentRow['status'];
  settled: boolean;
  per1000: number;
  /** Open payments are of the last hours (an older one would have expired). */
  open: boolean;
}
export const VARIANTS: Variant[] = [
  { status: 'succeeded', settled: true, per1000: 684, open: false },
  { status: 'succeeded', settled: false, per1000: 36, open: false },
  { status: 'expired', settled: false, per1000: 120, open: false },
  { status: 'failed', settled: false, per1000: 60, open: false },
  { status: 'cancelled', settled: false, per1000: 50, open: false },
  { status: 'processing', settled: false, per1000: 20, open: true },
  { status: 'requires_action', settled: false, per1000: 30, open: true },
];

// The template payment's tokens: each stands for one column of the row being written.
const BASE = Date.UTC(2001, 0, 1);
const TOKEN = {
  idBody: 'QQQQQQQQQQQQQQQQQQQQQQQQ',
  merchant: 'mer_MMMMMMMMMMMMMMMM',
  reference: 'RRRRRRRRRRRRRRRR',
  unit: 'iso4217/UUU',
  amount: '77777',
  eventId: 'evt_EEEEEEEEEEEEEEEEEEEEEEEE',
};
const ISO_TOKEN = /2001-01-01T\d\d:\d\d:\d\d\.\d{3}Z/g;

/** The SQL of each token's value, over the columns of the fill's `seed_pay` table (and `event_id`). */
export function isoSql(dialect: Dialect, ms: string): string {
  return dialect === 'postgres'
    ? `to_char(timestamp 'epoch' + (${ms}) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`;
}

export const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/** A SQL text expression: `text` with every token replaced by its column (knex would read `?` as a binding). */
export function templateSql(dialect: Dialect, text: string, eventIdSql = 'event_id'): string {
  if (text.includes('?')) throw new Error('a template may not hold "?"');
  const values: [string, string][] = [
    [TOKEN.idBody, 'substr(id, 5)'],
    [TOKEN.merchant, 'merchant_id'],
    [TOKEN.reference, 'ref'],
    [TOKEN.unit, 'unit'],
    [TOKEN.amount, 'amount'],
    [TOKEN.eventId, eventIdSql],
  ];
  const pattern = new RegExp(`${values.map(([t]) => t).join('|')}|${ISO_TOKEN.source}`, 'g');
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) parts.push(quote(text.slice(last, m.index)));
    const known = values.find(([t]) => t === m[0]);
    parts.push(known ? known[1] : isoSql(dialect, `created + ${Date.parse(m[0]) - BASE}`));
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(quote(text.slice(last)));
  return parts.join(' || ');
}

/** The template payment of a variant, its values tokens (open ones expire at `expiresAt`, as the fill writes them). */
export function templateRow(v: Variant, expiresAt: number): PaymentRow {
  const id = `pay_${TOKEN.idBody}`;
  return {
    id,
    merchant_id: TOKEN.merchant,
    live: false,
    status: v.status,
    state_version: eventTypes(v.status, v.settled).length - 1,
    reference_id: TOKEN.reference,
    amount_unit: TOKEN.unit,
    amount_value: TOKEN.amount,
    success_url: null,
    error_url: null,
    created_at: BASE,
    expires_at: v.open ? expiresAt : BASE + 900_000,
    updated_at: BASE + 120_000,
    stages: stagesOf(v.status, id, TOKEN.amount, BASE, v.settled),
  };
}

/** The stage column `column` of variant `v`, as SQL (null where the stage does not apply). */
export function stageSql(dialect: Dialect, v: Variant, column: (typeof STAGE_COLUMNS)[number]): string {
  const stage = templateRow(v, 0).stages[column];
  return stage === null ? 'null' : templateSql(dialect, JSON.stringify(stage));
}

/** The payload of a variant's event of version `version`: the webhook envelope of the payment's snapshot. */
export function payloadSql(dialect: Dialect, v: Variant, version: number, expiresAt: number): string {
  const type = eventTypes(v.status, v.settled)[version]!;
  const snapshot = JSON.stringify(toSnapshot(templateRow(v, expiresAt), noBuyers));
  const at = new Date(BASE + version * 30_000).toISOString();
  return templateSql(
    dialect,
    `{"id":"${TOKEN.eventId}","type":"${type}","api_version":"${WEBHOOK_API_VERSION}","created_at":"${at}","data":${snapshot}}`,
  );
}
