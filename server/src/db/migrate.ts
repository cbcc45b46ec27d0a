import { Logger as GraphileLogger, runMigrations } from 'graphile-worker';
import type { Knex } from 'knex';
import type { Database } from './connect.js';
import { dialectOf } from './dialect.js';
import { openJobPool } from './jobPool.js';
import * as initial from './migrations/001_initial.js';
import * as webhooks from './migrations/002_webhooks.js';
import * as webhookTrigger from './migrations/003_webhook_trigger.js';
import * as gateway from './migrations/004_gateway.js';
import * as solanaPay from './migrations/005_solana_pay.js';
import * as dashboard from './migrations/006_dashboard.js';
import * as settlement from './migrations/007_settlement.js';
import * as direct from './migrations/008_direct.js';
import * as moves from './migrations/008_moves.js';
import * as moveLeases from './migrations/009_move_leases.js';
import * as refundSource from './migrations/010_refund_source.js';
import * as refundPolicy from './migrations/011_refund_policy.js';
import * as settlementGuards from './migrations/013_settlement_guards.js';
import * as scaleIndexes from './migrations/016_scale_indexes.js';
import * as attemptsPruned from './migrations/017_attempts_pruned.js';
import * as paymentDayTotals from './migrations/018_payment_day_totals.js';
import * as ledgerTotals from './migrations/019_ledger_totals.js';
import * as paymentDetails from './migrations/020_payment_details.js';
import * as paymentLinks from './migrations/021_payment_links.js';
import * as invoices from './migrations/022_invoices.js';
import * as posTerminals from './migrations/023_pos_terminals.js';
import * as merchantLogos from './migrations/024_merchant_logos.js';

/** Migrations are imported, not discovered on disk, so they run the same from source, from dist and in tests. */
const migrations: Record<string, Knex.Migration> = {
  '001_initial': initial,
  '002_webhooks': webhooks,
  '003_webhook_trigger': webhookTrigger,
  '004_gateway': gateway,
  '005_solana_pay': solanaPay,
  '006_dashboard': dashboard,
  '007_settlement': settlement,
  '008_direct': direct,
  '008_moves': moves,
  '009_move_leases': moveLeases,
  '010_refund_source': refundSource,
  '011_refund_policy': refundPolicy,
  '013_settlement_guards': settlementGuards,
  // Exports `config = { transaction: false }`: knex honours it per migration (016_scale_indexes.ts).
  '016_scale_indexes': scaleIndexes,
  '017_attempts_pruned': attemptsPruned,
  // Exports `config = { transaction: false }` too (its indexes are built concurrently).
  '018_payment_day_totals': paymentDayTotals,
  '019_ledger_totals': ledgerTotals,
  '020_payment_details': paymentDetails,
  // Exports `config = { transaction: false }` too (its partial index on payments is built concurrently).
  '021_payment_links': paymentLinks,
  // Exports `config = { transaction: false }` too (its partial index on payments is built concurrently).
  '022_invoices': invoices,
  '023_pos_terminals': posTerminals,
  '024_merchant_logos': merchantLogos,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name]!,
};

const config: Knex.MigratorConfig = { migrationSource: source, tableName: 'paygate_migrations' };

/**
 * knex's list validation calls a database "corrupt" when it holds a migration this code does not know. That is what
 * every upgrade looks like to the old processes (the new release's expand-only migrations run while they serve,
 * §29.12) and what a rollback looks like to the old release, so the list is compared here instead.
 */
async function migrationState(db: Database): Promise<{ pending: string[]; unknown: string[] }> {
  const [completed, pending] = (await db.knex.migrate.list({ ...config, disableMigrationsListValidation: true })) as [
    { name: string }[],
    string[],
  ];
  return { pending, unknown: completed.map((m) => m.name).filter((name) => !(name in migrations)) };
}

/** Brings the schema up to date: our tables, and graphile-worker's on PostgreSQL. */
export async function migrateDatabase(db: Database): Promise<string[]> {
  const { pending, unknown } = await migrationState(db);
  let applied: string[] = [];
  if (unknown.length > 0) {
    // A later release migrated this database. Every migration of ours already ran: this release runs on the newer,
    // expanded schema and applies nothing. One of ours missing under a newer one is a history no release made;
    // running it out of order could undo what the later one did.
    if (pending.length > 0) {
      throw new Error(
        `the database has migrations this release does not know (${unknown.join(', ')}) but lacks ${pending.join(', ')}: migrate with the newest release`,
      );
    }
  } else {
    [, applied] = (await db.knex.migrate.latest(config)) as [number, string[]];
  }
  if (dialectOf(db) === 'postgres') {
    // Silent: graphile-worker's migration lines say nothing the caller of a migration acts on. Our own pool, closed
    // before returning (db/jobPool.ts).
    const pgPool = openJobPool(db.url, { max: 1 });
    try {
      await runMigrations({ pgPool, logger: new GraphileLogger(() => () => {}) });
    } finally {
      await pgPool.end();
    }
  }
  return applied;
}

/**
 * True when every migration of this code has run: /readyz refuses traffic on a database that is behind the code, and
 * accepts one that is ahead of it (an upgrade in progress, or a rollback).
 */
export async function migrationsCurrent(db: Database): Promise<boolean> {
  return (await migrationState(db)).pending.length === 0;
}
