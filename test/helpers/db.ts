/**
 * A fresh database per test file (CONVENTIONS.md §15): SQLite in a temporary file, PostgreSQL as a copy of a
 * migrated template database, so each file starts from the same schema without paying for migrations again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateDatabase, openDatabase, type Database, type Dialect } from '@paygate/server';

export const dialects: Dialect[] = ['sqlite', 'postgres'];

function postgresAdminUrl(): string {
  const url = process.env.PAYGATE_TEST_POSTGRES_URL;
  if (!url) throw new Error('PAYGATE_TEST_POSTGRES_URL is unset: run the suite through mocha (test/setup.ts)');
  return url;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

const TEMPLATE = 'paygate_test_template';

/**
 * Creates the migrated template database that every PostgreSQL test database is copied from. The mocha global
 * setup (test/setup.ts) calls it once per run, before any worker starts, so parallel workers only ever copy it.
 */
export async function prepareTemplate(adminUrl: string): Promise<void> {
  const admin = openDatabase(adminUrl, { poolMax: 1 });
  try {
    await admin.knex.raw(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await admin.knex.raw(`CREATE DATABASE ${TEMPLATE}`);
  } finally {
    await admin.close();
  }
  const template = openDatabase(withDatabase(adminUrl, TEMPLATE), { poolMax: 1 });
  try {
    await migrateDatabase(template);
  } finally {
    await template.close();
  }
}

export interface TestDatabase {
  url: string;
  db: Database;
  drop(): Promise<void>;
}

/** A migrated, empty database of the given dialect, owned by the caller. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'paygate-sqlite-'));
    const url = `sqlite:${join(dir, 'paygate.sqlite')}`;
    const db = openDatabase(url);
    await migrateDatabase(db);
    return {
      url,
      db,
      async drop() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `paygate_test_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase(postgresAdminUrl(), { poolMax: 1 });
  try {
    await admin.knex.raw(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  } finally {
    await admin.close();
  }
  const url = withDatabase(postgresAdminUrl(), name);
  const db = openDatabase(url);
  return {
    url,
    db,
    async drop() {
      await db.close();
      const cleanup = openDatabase(postgresAdminUrl(), { poolMax: 1 });
      try {
        await cleanup.knex.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await cleanup.close();
      }
    },
  };
}

/**
 * Runs a storage suite once per dialect. Storage behaviour differs between SQLite and PostgreSQL (locking,
 * types, constraints), so every storage test runs on both.
 */
export function describeEachDatabase(
  title: string,
  body: (get: () => TestDatabase, dialect: Dialect) => void,
  /** The dialects to run on, when not both. */
  on: readonly Dialect[] = dialects,
): void {
  for (const dialect of on) {
    describe(`${title} [${dialect}]`, function () {
      let current: TestDatabase | null = null;
      before(async () => {
        current = await createTestDatabase(dialect);
      });
      after(async () => {
        await current?.drop();
      });
      body(() => {
        if (!current) throw new Error('database not ready');
        return current;
      }, dialect);
    });
  }
}
