/**
 * The scale benchmark's fill (scripts/bench/scale.ts, issue 36): rows written as production writes them (valid
 * statuses and versions, each status's stage object, the webhook envelope of each event from the server's own
 * `toSnapshot`, audit details sealed by the runtime's own secret box), but inserted in bulk: on PostgreSQL one
 * `insert … select from unnest(arrays)` per few thousand rows (pg-copy-streams is not a dependency), on SQLite
 * prepared statements; each chunk in one transaction, with every index in place, as a live database has them.
 */
import type { Knex } from 'knex';
import type { Runtime } from '@paygate/server';
import { onSqliteConnection, sqliteValues } from '../../server/src/db/connect.js';
import { dialectOf } from '../../server/src/db/dialect.js';
import type { PaymentRow } from '../../server/src/db/queries/payments.js';
import { newId } from '../../server/src/ids.js';
import { toSnapshot, WEBHOOK_API_VERSION } from '../../server/src/payments/snapshot.js';
import { newDeliveryId } from '../../server/src/webhooks/delivery.js';
import * as rollup from '../../server/src/db/migrations/018_payment_day_totals.js';
import * as ledgerTotals from '../../server/src/db/migrations/019_ledger_totals.js';
import { EVENT_TYPE, noBuyers, PATHS, stagesOf } from './_scaleSqlTemplates.js';
import { fillChunkInDatabase } from './_scaleSqlFill.js';
import { checkFill } from './_scaleFillCheck.js';

export const DAY = 86_400_000;
const HISTORY_DAYS = 400;

/** Per payment of the large merchant, what else the issue's figures (at 1M payments) put beside it. */
export const RATIOS = {
  /** 200k payments of 50 other merchants per 1M. */
  otherPayments: 0.2,
  /** 5M webhook deliveries per 1M. */
  deliveries: 5,
  /** 100k audit rows per 1M. */
  audit: 0.1,
  /** A payout per 100 payments. */
  payouts: 0.01,
};

type Column = [name: string, pgType: string];
interface Table {
  name: string;
  columns: Column[];
}

const T = (name: string, spec: string): Table => ({
  name,
  columns: spec.split(',').map((c) => c.trim().split(':') as Column),
});

const PAYMENTS = T(
  'payments',
  `id:text, merchant_id:text, live:boolean, status:text, state_version:int, reference_id:text, amount_unit:text,
   amount_value:text, created_at:bigint, expires_at:bigint, updated_at:bigint, settlement_mode:text, processing:text,
   success:text, failed:text, cancelled:text, expired:text, settled:text`,
);
const EVENTS = T(
  'events',
  'id:text, payment_id:text, merchant_id:text, live:boolean, type:text, state_version:int, created_at:bigint, payload:text',
);
const DELIVERIES = T(
  'webhook_deliveries',
  `id:text, endpoint_id:text, event_id:text, event_type:text, payment_id:text, merchant_id:text, live:boolean,
   status:text, trigger:text, attempt_count:int, created_at:bigint, delivered_at:bigint, updated_at:bigint`,
);
const ATTEMPTS = T(
  'webhook_attempts',
  'delivery_id:text, attempt:int, started_at:bigint, status:int, latency_ms:int, error:text, response_body:text, delivered:boolean',
);
const LEDGER = T(
  'ledger_entries',
  `entry_key:text, kind:text, merchant_id:text, live:boolean, mode:text, chain_caip2:text, asset_caip19:text,
   amount:text, address:text, payment_id:text, payout_id:text, created_at:bigint`,
);
const AUDIT = T(
  'audit_log',
  'id:text, merchant_id:text, mode:text, at:bigint, actor_kind:text, actor_id:text, action:text, target:text, details_sealed:text',
);
const PAYOUTS = T(
  'payouts',
  `id:text, merchant_id:text, live:boolean, chain_caip2:text, asset_caip19:text, gross:text, fee:text, net:text,
   destination:text, state:text, tx_id:text, details:text, created_at:bigint, sent_at:bigint, final_at:bigint`,
);

/** Inserts rows (arrays in the table's column order) in the caller's transaction. */
async function insertRows(trx: Knex.Transaction, table: Table, rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const names = table.columns.map(([n]) => n);
  if (dialectOf(trx) === 'postgres') {
    const BATCH = 5000;
    for (let i = 0; i < rows.length; i += BATCH) {
      const part = rows.slice(i, i + BATCH);
      const arrays = table.columns.map((_, c) => part.map((r) => r[c]));
      await trx.raw(
        `insert into ?? (${names.map(() => '??').join(', ')}) select * from unnest(${table.columns
          .map(([, type]) => `?::${type}[]`)
          .join(', ')})`,
        [table.name, ...names, ...arrays] as Knex.RawBinding[],
      );
    }
    return;
  }
  await onSqliteConnection(trx, `seed ${table.name}`, (conn) => {
    const statement = conn.prepare(
      `insert into "${table.name}" (${names.map((n) => `"${n}"`).join(', ')}) values (${names.map(() => '?').join(', ')})`,
    );
    for (const r of rows) statement.run(sqliteValues(r));
  });
}

/** A deterministic generator (mulberry32), so two runs fill the same rows. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Final statuses spread as a shop sees them; open ones are recent (older ones would have expired). */
const STATUS_SHARES: [PaymentRow['status'], number][] = [
  ['succeeded', 0.72],
  ['expired', 0.12],
  ['failed', 0.06],
  ['cancelled', 0.05],
  ['processing', 0.02],
  ['requires_action', 0.03],
];
export interface Fill {
  runtime: Runtime;
  knex: Knex;
  now: number;
  merchantId: string;
  otherMerchants: string[];
  /** The large merchant's test-mode webhook endpoint (made through the server, its secret sealed). */
  endpointId: string;
  rand: () => number;
  /** Payments of the large merchant filled so far. */
  filled: number;
  /** Numbers given to the fill's payments so far (each payment's number makes its id and its values). */
  seq: number;
  /** A sample of the large merchant's payments, for the reads by id. */
  sample: { id: string; reference_id: string; created_at: number }[];
  /** Payments offered to the sample so far. */
  sampleSeen?: number;
}

function pickStatus(r: number): PaymentRow['status'] {
  let acc = 0;
  for (const [s, share] of STATUS_SHARES) if (r < (acc += share)) return s;
  return 'succeeded';
}

interface Rows {
  payments: unknown[][];
  events: unknown[][];
  deliveries: unknown[][];
  attempts: unknown[][];
  ledger: unknown[][];
  audit: unknown[][];
  payouts: unknown[][];
}

/** The fill makes no payment with a buyer, so nothing sealed is ever opened. */

/** One payment with its events (and, for the large merchant, its deliveries, attempts and ledger rows). */
function addPayment(f: Fill, rows: Rows, merchantId: string, full: boolean, extraDeliveries = 0): PaymentRow {
  const status = pickStatus(f.rand());
  const open = status === 'requires_action' || status === 'processing';
  // Open payments are of the last hours (an older one would have expired); the rest over 400 days.
  const created = open
    ? f.now - Math.floor(f.rand() * 6 * 3_600_000)
    : f.now - Math.floor(f.rand() * HISTORY_DAYS * DAY);
  const amount = String(100 + Math.floor(f.rand() * 99_900));
  const settled = status === 'succeeded' && f.rand() < 0.95;
  const path = [...PATHS[status], ...(settled ? ['settled' as const] : [])];
  const row: PaymentRow = {
    id: newId.payment(),
    merchant_id: merchantId,
    live: false,
    status,
    state_version: path.length,
    reference_id: `order-${Math.floor(f.rand() * 1e12).toString(36)}`,
    amount_unit: f.rand() < 0.8 ? 'iso4217/USD' : 'iso4217/EUR',
    amount_value: amount,
    success_url: null,
    error_url: null,
    created_at: created,
    expires_at: open ? f.now + 2 * DAY : created + 900_000,
    updated_at: created + 120_000,
    stages: stagesOf(status, '', amount, created, settled),
  };
  row.stages = stagesOf(status, row.id, amount, created, settled);
  const snapshot = JSON.stringify(toSnapshot(row, noBuyers));
  rows.payments.push([
    row.id,
    merchantId,
    false,
    status,
    row.state_version,
    row.reference_id,
    row.amount_unit,
    row.amount_value,
    created,
    row.expires_at,
    row.updated_at,
    'direct',
    ...(['processing', 'success', 'failed', 'cancelled', 'expired', 'settled'] as const).map((s) =>
      row.stages[s] === null ? null : JSON.stringify(row.stages[s]),
    ),
  ]);
  const types = ['payment.created', ...path.map((p) => EVENT_TYPE[p]!)];
  const events = types.map((type, version) => {
    const id = newId.event();
    const at = created + version * 30_000;
    const payload = `{"id":"${id}","type":"${type}","api_version":"${WEBHOOK_API_VERSION}","created_at":"${iso(at)}","data":${snapshot}}`;
    rows.events.push([id, row.id, merchantId, false, type, version, at, payload]);
    return { id, type, at };
  });
  if (!full) return row;
  // Deliveries: one per event, then resends of the last, up to the issue's five per payment on average.
  const count = Math.max(events.length, Math.round(RATIOS.deliveries + (f.rand() - 0.5) * 2)) + extraDeliveries;
  for (let d = 0; d < count; d++) {
    const e = events[Math.min(d, events.length - 1)]!;
    const failed = f.rand() < 0.03;
    const id = newDeliveryId();
    const at = e.at + Math.max(0, d - events.length + 1) * 60_000;
    const attempts = failed ? 8 : 1;
    rows.deliveries.push([
      id,
      f.endpointId,
      e.id,
      e.type,
      row.id,
      merchantId,
      false,
      failed ? 'failed' : 'delivered',
      d < events.length ? 'event' : 'resend',
      attempts,
      at,
      failed ? null : at + 40,
      at + 40,
    ]);
    for (let a = 1; a <= attempts; a++) {
      rows.attempts.push([
        id,
        a,
        at + (a - 1) * 60_000,
        failed ? 500 : 200,
        20 + Math.floor(f.rand() * 200),
        null,
        failed ? '{"error":"upstream unavailable"}' : '{"ok":true}',
        !failed,
      ]);
    }
  }
  if (status === 'succeeded') {
    // received, fee and payable: about two ledger rows per payment of the merchant overall, as the issue's 2M.
    for (const kind of ['received', 'fee', 'payable']) {
      rows.ledger.push([
        `${kind}:${row.id}`,
        kind,
        merchantId,
        false,
        'direct',
        'eip155:31337',
        'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3',
        kind === 'fee' ? '100' : `${amount}0000`,
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        row.id,
        null,
        created + 60_000,
      ]);
    }
  }
  return row;
}

/** The audit rows, their details sealed as recordAudit seals them (bound to each row's id). */
function addAudit(f: Fill, rows: Rows): void {
  const id = newId.audit();
  const at = f.now - Math.floor(f.rand() * HISTORY_DAYS * DAY);
  const details = f.runtime.secretBox.seal(JSON.stringify({ amount: '1250' }), `audit_log.details_sealed:${id}`);
  rows.audit.push([id, f.merchantId, 'test', at, 'api_key', 'key_bench', 'payment.refund', null, details]);
}

function addPayout(f: Fill, rows: Rows): void {
  const at = f.now - Math.floor(f.rand() * HISTORY_DAYS * DAY);
  rows.payouts.push([
    newId.payout(),
    f.merchantId,
    false,
    'eip155:31337',
    'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3',
    '100000000',
    '1000000',
    '99000000',
    '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    'final',
    `0x${'ab'.repeat(32)}`,
    '{}',
    at,
    at + 10_000,
    at + 60_000,
  ]);
}

const CHUNK = 50_000;
const SAMPLE = 2000;
/** One payment in five is offered to the sample, at every size, so the reservoir stays uniform over the sizes. */
const SAMPLE_EVERY = 5;

/**
 * Fills the large merchant up to `target` payments, with the others' payments, deliveries, attempts, ledger, audit
 * and payout rows in proportion, chunk by chunk (one transaction each, generated inside the database:
 * _scaleSqlFill.ts; the audit rows and payouts, a tenth of the payments, in JavaScript, since each audit row is
 * sealed bound to its own id). Then rebuilds the overview's rollup and the ledger totals from the rows (migrations
 * 018's and 019's own backfills), refreshes the planner's statistics and checks the fill (_scaleFillCheck.ts): the
 * rollups equal a scan, and a payment of each status reads back as the app wrote it. `timeline` gets
 * `timelineDeliveries` deliveries, once (written in JavaScript: one payment).
 */
export async function fillTo(f: Fill, target: number, timelineDeliveries = 0): Promise<PaymentRow | null> {
  let timeline: PaymentRow | null = null;
  const dialect = dialectOf(f.knex);
  const empty = (): Rows => ({
    payments: [],
    events: [],
    deliveries: [],
    attempts: [],
    ledger: [],
    audit: [],
    payouts: [],
  });
  const write = (trx: Knex.Transaction, rows: Rows) =>
    [PAYMENTS, EVENTS, DELIVERIES, ATTEMPTS, LEDGER, AUDIT, PAYOUTS].reduce(
      (p, table, i) => p.then(() => insertRows(trx, table, Object.values(rows)[i] as unknown[][])),
      Promise.resolve(),
    );
  if (f.filled === 0 && timelineDeliveries > 0 && target > 0) {
    const rows = empty();
    timeline = addPayment(f, rows, f.merchantId, true, timelineDeliveries);
    await f.knex.transaction((trx) => write(trx, rows));
    f.filled += 1;
  }
  while (f.filled < target) {
    const n = Math.min(CHUNK, target - f.filled);
    const others = Math.round(n * RATIOS.otherPayments);
    const rows = empty();
    for (let i = 0; i < Math.round(n * RATIOS.audit); i++) addAudit(f, rows);
    for (let i = 0; i < Math.round(n * RATIOS.payouts); i++) addPayout(f, rows);
    const chunk = { endpointId: f.endpointId, now: f.now, historyDays: HISTORY_DAYS };
    const sampled = await f.knex.transaction(async (trx) => {
      const mine = await fillChunkInDatabase(
        trx,
        dialect,
        { ...chunk, first: f.seq, count: n, merchantIds: [f.merchantId], full: true },
        SAMPLE_EVERY,
      );
      if (others > 0)
        await fillChunkInDatabase(
          trx,
          dialect,
          { ...chunk, first: f.seq + n, count: others, merchantIds: f.otherMerchants, full: false },
          1e9,
        );
      await write(trx, rows);
      return mine;
    });
    f.seq += n + others;
    // A uniform sample of the merchant's payments over every chunk filled so far (reservoir sampling).
    for (const p of sampled) {
      f.sampleSeen = (f.sampleSeen ?? 0) + 1;
      if (f.sample.length < SAMPLE) f.sample.push(p);
      else {
        const at = Math.floor(f.rand() * f.sampleSeen);
        if (at < SAMPLE) f.sample[at] = p;
      }
    }
    f.filled += n;
  }
  await rollup.up(f.knex);
  await ledgerTotals.up(f.knex);
  await f.knex.raw('analyze');
  await checkFill(f.knex, f.merchantId, f.now);
  return timeline;
}
