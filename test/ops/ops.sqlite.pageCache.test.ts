/**
 * The embedded database's page cache (db/connect.ts, docs/decisions.md §24.17): every SQLite connection Paygate
 * opens (the server's and the worker runner's runtime, the CLI's commands, all through `openDatabase`) keeps up to
 * 64 MiB of pages, instead of the 16,000 KiB better-sqlite3 builds SQLite with, so writes at scale stop rereading
 * the indexes' pages from the file.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, openDatabase, type Database } from '@paygate/server';
import { SQLITE_CACHE_KIB } from '../../server/src/db/connect.js';
import { testConfig } from '../helpers/config.js';

/** The connection's page cache as SQLite reports it: a negative number is a size in KiB, a positive one pages. */
async function cacheSizeOf(db: Database): Promise<number> {
  const rows = (await db.knex.raw('PRAGMA cache_size')) as { cache_size: number }[];
  return rows[0]!.cache_size;
}

describe('ops.sqlite.pageCache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-page-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a database file with a 64 MiB page cache, kept across queries and transactions', async () => {
    assert.equal(SQLITE_CACHE_KIB, 64 * 1024);
    const db = openDatabase(`sqlite:${join(dir, 'paygate.sqlite')}`);
    try {
      assert.equal(await cacheSizeOf(db), -SQLITE_CACHE_KIB);
      await db.knex.transaction(async (trx) => {
        await trx.schema.createTable('filler', (t) => t.increments('id'));
      });
      assert.equal(await cacheSizeOf(db), -SQLITE_CACHE_KIB);
    } finally {
      await db.close();
    }
  });

  it('a runtime that opens its own database (paygate start, paygate worker) gets the same page cache', async () => {
    const runtime = await createRuntime({
      config: testConfig({ DATABASE_URL: `sqlite:${join(dir, 'runtime.sqlite')}` }),
      migrate: true,
    });
    try {
      assert.equal(await cacheSizeOf(runtime.db), -SQLITE_CACHE_KIB);
    } finally {
      await runtime.close();
    }
  });

  it('a caller may choose another size, in KiB (the scale bench measures with the build default, 16,000)', async () => {
    const db = openDatabase(`sqlite:${join(dir, 'small.sqlite')}`, { sqliteCacheKiB: 16_000 });
    try {
      assert.equal(await cacheSizeOf(db), -16_000);
    } finally {
      await db.close();
    }
  });
});
