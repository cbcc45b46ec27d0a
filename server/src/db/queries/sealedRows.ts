/**
 * Re-seals everything sealed at rest under the first key of PAYGATE_ENCRYPTION_KEY, so an old key can be removed.
 * A row whose sealed values already name the first key is not selected, so the job is idempotent and resumable: each
 * batch is its own transaction, and a run stopped halfway continues where the rows still name another key.
 * Users' email hashes (keyed by a key derived from the first encryption key) are recomputed in the same update as the
 * email they hash, so a user is never left with an email under one key and a hash under another.
 */
import type { Knex } from 'knex';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { Database } from '../connect.js';
import { dialectOf } from '../dialect.js';

export interface ResealDeps {
  db: Database;
  secretBox: SecretBox;
  /** users.email_hash of an email under the first key (users/userAccounts.ts emailHashOf). */
  emailHash: (email: string) => string;
}

// Row locks exist only on PostgreSQL (a concurrent rewrite, e.g. a webhook secret rotation, must not be overwritten
// by the re-seal of the value it replaced); SQLite serialises writers on its single connection.
const locked = (db: Database, q: Knex.QueryBuilder) => (dialectOf(db) === 'postgres' ? q.forUpdate() : q);

interface SealedTable {
  table: string;
  key: string[];
  /** Each sealed column and its binding context (what crypto/secretBox.ts calls `context`), from the row. */
  columns: Record<string, (row: Row) => string>;
}
type Row = Record<string, unknown>;

/** Every SecretBox.seal call site in server/src, by table (grep `\.seal(` when adding one). */
const SEALED: SealedTable[] = [
  {
    table: 'users',
    key: ['id'],
    columns: {
      email_sealed: (r) => `users.email_sealed:${String(r.id)}`,
      totp_secret_sealed: (r) => `users.totp_secret_sealed:${String(r.id)}`,
      totp_pending_sealed: (r) => `users.totp_pending_sealed:${String(r.id)}`,
    },
  },
  {
    table: 'webhook_endpoints',
    key: ['id'],
    columns: { secret_sealed: (r) => String(r.id), previous_secret_sealed: (r) => `${String(r.id)}:previous` },
  },
  {
    table: 'invoices',
    key: ['id'],
    columns: { buyer_sealed: (r) => `invoices.buyer_sealed:${String(r.id)}` },
  },
  {
    table: 'collected_data',
    key: ['payment_id'],
    columns: { sealed: (r) => `collected_data:${String(r.payment_id)}` },
  },
  {
    table: 'dashboard_sessions',
    key: ['id'],
    columns: {
      ip_sealed: (r) => `dashboard_sessions.ip_sealed:${String(r.id)}`,
      user_agent_sealed: (r) => `dashboard_sessions.user_agent_sealed:${String(r.id)}`,
    },
  },
  {
    table: 'audit_log',
    key: ['id'],
    columns: {
      details_sealed: (r) => `audit_log.details_sealed:${String(r.id)}`,
      ip_sealed: (r) => `audit_log.ip_sealed:${String(r.id)}`,
    },
  },
  // What was sold (docs/decisions.md §30.3): a payment's buyer, and the events of a payment with one.
  { table: 'payments', key: ['id'], columns: { buyer_sealed: (r) => `payments.buyer_sealed:${String(r.id)}` } },
  { table: 'events', key: ['id'], columns: { payload_sealed: (r) => `events.payload_sealed:${String(r.id)}` } },
];

/** Stored idempotent answers whose refund carries a claim link sealed with the refund's id (settlement/refunds.ts). */
const ANSWERS = 'idempotency_keys';
const CLAIM_PREFIX = '"claim_url":"v1.';

export const ROTATION_TABLES = [...SEALED.map((t) => t.table), ANSWERS];

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function underOtherKey(q: Knex.QueryBuilder, spec: SealedTable, active: string): Knex.QueryBuilder {
  const prefix = `v1.${likeEscape(active)}.%`;
  return q.where((w) => {
    for (const column of Object.keys(spec.columns)) {
      void w.orWhere((c) => c.whereNotNull(column).whereRaw(`?? NOT LIKE ? ESCAPE '\\'`, [column, prefix]));
    }
  });
}

function answersUnderOtherKey(q: Knex.QueryBuilder, active: string): Knex.QueryBuilder {
  return q
    .whereRaw(`response_body LIKE ? ESCAPE '\\'`, [`%${likeEscape(CLAIM_PREFIX)}%`])
    .whereRaw(`response_body NOT LIKE ? ESCAPE '\\'`, [`%${likeEscape(`${CLAIM_PREFIX}${active}.`)}%`]);
}

export type RotationCounts = Record<string, number>;

/** How many rows per table still hold a value sealed under a key other than the first. */
export async function countUnderOtherKeys(deps: ResealDeps): Promise<RotationCounts> {
  const active = deps.secretBox.activeKeyId;
  const counts: RotationCounts = {};
  const knex = deps.db.knex;
  for (const spec of SEALED) counts[spec.table] = await countOf(underOtherKey(knex(spec.table), spec, active));
  counts[ANSWERS] = await countOf(answersUnderOtherKey(knex(ANSWERS), active));
  return counts;
}

async function countOf(q: Knex.QueryBuilder): Promise<number> {
  const row = (await q.count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/** Re-seals in batches of `batchSize` rows per transaction; returns the rows changed per table. */
export async function rotateEncryptionKey(deps: ResealDeps, batchSize = 500): Promise<RotationCounts> {
  const active = deps.secretBox.activeKeyId;
  const box = deps.secretBox;
  const changed: RotationCounts = {};
  for (const spec of SEALED) {
    let total = 0;
    for (;;) {
      const n = await deps.db.knex.transaction(async (trx) => {
        const rows = (await locked(
          deps.db,
          underOtherKey(trx(spec.table), spec, active)
            .select([...spec.key, ...Object.keys(spec.columns)])
            .orderBy(spec.key)
            .limit(batchSize),
        )) as Row[];
        for (const row of rows) {
          const update: Row = {};
          for (const [column, contextOf] of Object.entries(spec.columns)) {
            const sealed = row[column];
            if (typeof sealed !== 'string') continue;
            const plain = box.open(sealed, contextOf(row));
            update[column] = box.seal(plain, contextOf(row));
            if (spec.table === 'users' && column === 'email_sealed') update.email_hash = deps.emailHash(plain);
          }
          await trx(spec.table)
            .where(Object.fromEntries(spec.key.map((k) => [k, row[k]])))
            .update(update);
        }
        return rows.length;
      });
      total += n;
      if (n < batchSize) break;
    }
    changed[spec.table] = total;
  }
  let answers = 0;
  for (;;) {
    const n = await deps.db.knex.transaction(async (trx) => {
      const rows = (await locked(
        deps.db,
        answersUnderOtherKey(trx(ANSWERS), active)
          .select(['merchant_id', 'live', 'key', 'response_body'])
          .orderBy(['merchant_id', 'live', 'key'])
          .limit(batchSize),
      )) as Array<{ merchant_id: string; live: boolean; key: string; response_body: string }>;
      for (const row of rows) {
        const body = JSON.parse(row.response_body) as { refund: { refund_id: string; claim_url: string } };
        const plain = box.open(body.refund.claim_url, body.refund.refund_id);
        body.refund.claim_url = box.seal(plain, body.refund.refund_id);
        await trx(ANSWERS)
          .where({ merchant_id: row.merchant_id, live: row.live, key: row.key })
          .update({ response_body: JSON.stringify(body) });
      }
      return rows.length;
    });
    answers += n;
    if (n < batchSize) break;
  }
  changed[ANSWERS] = answers;
  return changed;
}

export interface SealedCheck {
  /** Sealed values opened, per table. */
  opened: RotationCounts;
  /** Values no configured key opens: where they are, never what they hold. */
  failed: { table: string; column: string; row: string }[];
}

/**
 * Opens every sealed value under the configured keys, in key order and batches, writing nothing: after a restore
 * (or before removing a key) it says whether PAYGATE_ENCRYPTION_KEY still opens everything (`paygate admin
 * verify-secrets`, docs/decisions.md §29.13).
 */
export async function openEverySealed(
  deps: Pick<ResealDeps, 'db' | 'secretBox'>,
  batchSize = 500,
): Promise<SealedCheck> {
  const box = deps.secretBox;
  const result: SealedCheck = { opened: {}, failed: [] };
  const tryOpen = (table: string, column: string, row: string, sealed: string, context: string) => {
    try {
      box.open(sealed, context);
      result.opened[table] = (result.opened[table] ?? 0) + 1;
    } catch {
      result.failed.push({ table, column, row });
    }
  };
  for (const spec of SEALED) {
    result.opened[spec.table] = 0;
    let after: (string | number)[] | null = null;
    for (;;) {
      let q = deps.db.knex(spec.table).select([...spec.key, ...Object.keys(spec.columns)]);
      if (after)
        q = q.whereRaw(`(${spec.key.map(() => '??').join(', ')}) > (${spec.key.map(() => '?').join(', ')})`, [
          ...spec.key,
          ...after,
        ]);
      const rows = (await q.orderBy(spec.key).limit(batchSize)) as Row[];
      for (const row of rows) {
        const id = spec.key.map((k) => String(row[k])).join('/');
        for (const [column, contextOf] of Object.entries(spec.columns)) {
          const sealed = row[column];
          if (typeof sealed === 'string' && sealed !== '') tryOpen(spec.table, column, id, sealed, contextOf(row));
        }
      }
      if (rows.length < batchSize) break;
      after = spec.key.map((k) => rows[rows.length - 1]![k] as string | number);
    }
  }
  result.opened[ANSWERS] = 0;
  const rows = (await deps.db
    .knex(ANSWERS)
    .whereRaw(`response_body LIKE ? ESCAPE '\\'`, [`%${likeEscape(CLAIM_PREFIX)}%`])
    .select(['merchant_id', 'key', 'response_body'])) as Array<{
    merchant_id: string;
    key: string;
    response_body: string;
  }>;
  for (const row of rows) {
    // The LIKE can match a body that is not a refund's answer: only a refund's claim link is a sealed value.
    let refund: { refund_id?: unknown; claim_url?: unknown } | undefined;
    try {
      refund = (JSON.parse(row.response_body) as { refund?: typeof refund }).refund;
    } catch {
      refund = undefined;
    }
    if (typeof refund?.claim_url !== 'string' || typeof refund.refund_id !== 'string') continue;
    tryOpen(ANSWERS, 'response_body', `${row.merchant_id}/${row.key}`, refund.claim_url, refund.refund_id);
  }
  return result;
}
