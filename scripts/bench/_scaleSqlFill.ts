/**
 * The scale benchmark's fast fill (docs/decisions.md §24.13): a chunk of payments, with their events, webhook
 * deliveries and attempts and ledger rows, generated INSIDE the database by `insert … select` statements over a
 * number series (PostgreSQL's `generate_series`, SQLite's recursive CTE), in one transaction per chunk, with every
 * index and trigger in place. Rows still read as production rows: each status with its stage objects, versions and
 * events, the webhook envelope of the app's own `toSnapshot` (templates, _scaleSqlTemplates.ts), ids in the app's
 * format (`pay_` + 8 time characters + 16 base62). Which row is which status, how old, how much, is a fixed hash of
 * its number, so two runs fill the same shapes.
 */
import type { Knex } from 'knex';
import { randomBase62, timeBase62 } from '../../server/src/ids.js';
import {
  eventTypes,
  payloadSql,
  quote,
  STAGE_COLUMNS,
  stageSql,
  VARIANTS,
  type Dialect,
} from './_scaleSqlTemplates.js';

const DAY = 86_400_000;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `digits` base62 characters of a non-negative integer expression (most significant first). */
function b62(x: string, digits: number): string {
  const parts: string[] = [];
  for (let i = digits - 1; i >= 0; i--)
    parts.push(`substr('${B62}', cast(((${x}) / ${62 ** i}) % 62 + 1 as integer), 1)`);
  return parts.join(' || ');
}

const P = 4294967291; // the largest prime below 2^32
const MULT = [2654435761, 2246822519, 3266489917, 668265263, 374761393, 1181783497];
/** A hash of the integer expression `x` in [0, P): the k-th of a few independent ones. */
function hash(x: string, k: number): string {
  return `((((${x}) * ${MULT[k]!} + ${k * 7919 + 13}) % ${P}) * ${40503 + k * 2} % ${P})`;
}

/** A FROM source of the integers a..b (inclusive) as column `n`. */
function numbers(dialect: Dialect, a: number, b: number): { with: string; from: string } {
  return dialect === 'postgres'
    ? { with: '', from: `generate_series(${a}::bigint, ${b}::bigint) as s(n)` }
    : { with: `with recursive s(n) as (select ${a} union all select n + 1 from s where n < ${b}) `, from: 's' };
}

export interface SqlChunk {
  /** The number of the chunk's first payment (unique over the whole fill) and how many. */
  first: number;
  count: number;
  /** The merchant of every payment, or for the other merchants' payments, one of these by number. */
  merchantIds: string[];
  /** Whether the payments get deliveries, attempts and ledger rows (the large merchant's do). */
  full: boolean;
  endpointId: string;
  now: number;
  historyDays: number;
}

const variantCase = (col: string, values: string[]) =>
  `case ${col} ${values.map((v, i) => `when ${i} then ${v}`).join(' ')} end`;

/**
 * Writes one chunk in the caller's transaction. Returns a sample of the chunk's payments (about 1 in `sampleEvery`)
 * for the reads by id and reference.
 */
export async function fillChunkInDatabase(
  trx: Knex.Transaction,
  dialect: Dialect,
  c: SqlChunk,
  sampleEvery: number,
): Promise<{ id: string; reference_id: string; created_at: number }[]> {
  const time = timeBase62(Date.now());
  const salt = randomBase62(10);
  const expiresAt = c.now + 2 * DAY;
  const run = (sql: string) => trx.raw(sql);
  await run('drop table if exists seed_merchant');
  await run('drop table if exists seed_pay');
  await run('drop table if exists seed_del');
  await run(`create temp table seed_merchant (i integer primary key, merchant_id text not null)`);
  await run(
    `insert into seed_merchant (i, merchant_id) values ${c.merchantIds.map((m, i) => `(${i}, ${quote(m)})`).join(', ')}`,
  );

  // The variant of each payment: its hash's bucket among the per-1000 shares.
  let acc = 0;
  const bucket = hash('n', 0) + ' % 1000';
  const variant = `case ${VARIANTS.map((v, i) => `when ${bucket} < ${(acc += v.per1000)} then ${i}`).join(' ')} else 0 end`;
  const src = numbers(dialect, c.first, c.first + c.count - 1);
  await run(`create temp table seed_pay as ${src.with}
    select n, v, m.merchant_id as merchant_id,
      'pay_' || '${time}${salt}' || ${b62('n', 6)} as id,
      case when v >= 5 then ${c.now} - ${hash('n', 1)} % ${6 * 3_600_000}
        else ${c.now} - (${hash('n', 1)} % ${c.historyDays}) * ${DAY} - ${hash('n', 2)} % ${DAY} end as created,
      cast(100 + ${hash('n', 3)} % 99900 as text) as amount,
      case when ${hash('n', 4)} % 5 = 0 then 'iso4217/EUR' else 'iso4217/USD' end as unit,
      'order-' || ${b62(hash('n', 5), 6)} || ${b62('n', 5)} as ref
    from (select n, ${variant} as v from ${src.from}) x
    join seed_merchant m on m.i = n % ${c.merchantIds.length}`);

  const versionOf = VARIANTS.map((v) => String(eventTypes(v.status, v.settled).length - 1));
  await run(`insert into payments (id, merchant_id, live, status, state_version, reference_id, amount_unit,
      amount_value, created_at, expires_at, updated_at, settlement_mode, ${STAGE_COLUMNS.join(', ')})
    select id, merchant_id, false, ${variantCase(
      'v',
      VARIANTS.map((v) => quote(v.status)),
    )},
      ${variantCase('v', versionOf)}, ref, unit, amount, created,
      case when v >= 5 then ${expiresAt} else created + 900000 end, created + 120000, 'direct',
      ${STAGE_COLUMNS.map((col) =>
        variantCase(
          'v',
          VARIANTS.map((v) => stageSql(dialect, v, col)),
        ),
      ).join(',\n      ')}
    from seed_pay`);

  // Events: one statement per variant and version (a handful), each over the chunk's payments of that variant.
  const eventId = (version: string) => `'evt_' || '${time}${salt}' || ${b62('n', 5)} || ${b62(version, 1)}`;
  for (const [i, v] of VARIANTS.entries()) {
    const types = eventTypes(v.status, v.settled);
    for (const [version, type] of types.entries()) {
      await run(`insert into events (id, payment_id, merchant_id, live, type, state_version, created_at, payload)
        select event_id, id, merchant_id, false, '${type}', ${version}, created + ${version * 30_000},
          ${payloadSql(dialect, v, version, expiresAt)}
        from (select seed_pay.*, ${eventId(String(version))} as event_id from seed_pay where v = ${i}) p`);
    }
  }

  if (c.full) {
    // Deliveries: one per event, then resends of the last, 4–6 per payment (the issue's five on average); 3% failed
    // after eight attempts, the rest delivered at the first.
    const events = variantCase(
      'v',
      VARIANTS.map((v) => String(eventTypes(v.status, v.settled).length)),
    );
    const typeOf = variantCase(
      'v',
      VARIANTS.map(
        (v) =>
          `case k ${eventTypes(v.status, v.settled)
            .map((t, k) => `when ${k} then '${t}'`)
            .join(' ')} end`,
      ),
    );
    const dn = 'n * 8 + d';
    await run(`create temp table seed_del as
      select n, id as payment_id, merchant_id, v, d, k, trigger_kind,
        'whd_' || '${time}${salt}' || ${b62('n', 5)} || ${b62('d', 1)} as id,
        ${eventId('k')} as event_id, ${typeOf} as event_type,
        created + k * 30000 + (case when d > k then d - k else 0 end) * 60000 as at,
        case when ${hash(dn, 0)} % 100 < 3 then 1 else 0 end as failed
      from (select p.*, d, case when d < e then d else e - 1 end as k,
          case when d < e then 'event' else 'resend' end as trigger_kind
        from (select seed_pay.*, ${events} as e, 4 + ${hash('n', 2)} % 3 as dc from seed_pay) p
        join (select 0 as d union all select 1 union all select 2 union all select 3 union all select 4
          union all select 5) ds on ds.d < (case when p.dc > p.e then p.dc else p.e end)) x`);
    await run(`insert into webhook_deliveries (id, endpoint_id, event_id, event_type, payment_id, merchant_id, live,
        status, "trigger", attempt_count, created_at, delivered_at, updated_at)
      select id, ${quote(c.endpointId)}, event_id, event_type, payment_id, merchant_id, false,
        case when failed = 1 then 'failed' else 'delivered' end, trigger_kind,
        case when failed = 1 then 8 else 1 end, at, case when failed = 1 then null else at + 40 end, at + 40
      from seed_del`);
    await run(`insert into webhook_attempts (delivery_id, attempt, started_at, status, latency_ms, error,
        response_body, delivered)
      select id, a, at + (a - 1) * 60000, case when failed = 1 then 500 else 200 end,
        20 + ${hash(`(${dn}) * 8 + a`, 3)} % 200, null,
        case when failed = 1 then '{"error":"upstream unavailable"}' else '{"ok":true}' end,
        ${dialect === 'postgres' ? 'failed = 0' : 'case when failed = 1 then 0 else 1 end'}
      from seed_del
      join (select 1 as a union all select 2 union all select 3 union all select 4 union all select 5
        union all select 6 union all select 7 union all select 8) attempts on attempts.a = 1 or seed_del.failed = 1`);

    // Ledger: received, fee and payable per succeeded payment (about two rows per payment overall, the issue's 2M).
    const succeeded = VARIANTS.flatMap((v, i) => (v.status === 'succeeded' ? [i] : []));
    await run(`insert into ledger_entries (entry_key, kind, merchant_id, live, mode, chain_caip2, asset_caip19,
        amount, address, payment_id, payout_id, created_at)
      select kind || ':' || id, kind, merchant_id, false, 'direct', 'eip155:31337',
        'eip155:31337/erc20:0x5fbdb2315678afecb367f032d93f642f64180aa3',
        case when kind = 'fee' then '100' else amount || '0000' end,
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', id, null, created + 60000
      from seed_pay
      join (select 'received' as kind union all select 'fee' union all select 'payable') kinds on 1 = 1
      where v in (${succeeded.join(', ')})`);
  }
  const sample = (await trx.raw(
    `select id, ref as reference_id, created as created_at from seed_pay where n % ${sampleEvery} = 0`,
  )) as unknown;
  await run('drop table if exists seed_del');
  await run('drop table seed_pay');
  await run('drop table seed_merchant');
  const rows = (dialect === 'postgres' ? (sample as { rows: unknown[] }).rows : sample) as {
    id: string;
    reference_id: string;
    created_at: number | string;
  }[];
  return rows.map((r) => ({ ...r, created_at: Number(r.created_at) }));
}
