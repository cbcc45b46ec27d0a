/**
 * The embedded database's log checkpoints (db/walCheckpointer.ts): with background checkpoints, the process's own
 * connection does not checkpoint below the backstop, and the worker thread copies the log into the database file;
 * without them, SQLite's default applies.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '@paygate/server';
import { BACKSTOP_PAGES } from '../../server/src/db/walCheckpointer.js';
import { eventually } from '../helpers/wait.js';

/** The connection's automatic checkpoint threshold, in pages. */
async function autocheckpointOf(db: Database): Promise<number> {
  const rows = (await db.knex.raw('PRAGMA wal_autocheckpoint')) as { wal_autocheckpoint: number }[];
  return rows[0]!.wal_autocheckpoint;
}

/** About 8 MB in 4 KB rows, in transactions of 100 rows: far past SQLite's default threshold of 1000 pages. */
async function write(db: Database): Promise<void> {
  await db.knex.schema.createTable('filler', (t) => {
    t.increments('id');
    t.text('data');
  });
  const row = { data: 'x'.repeat(4000) };
  for (let i = 0; i < 20; i++) await db.knex('filler').insert(Array.from({ length: 100 }, () => row));
}

describe('ops.sqlite.checkpoints', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-checkpoints-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('background checkpoints: the worker copies the log into the database file; the connection keeps the backstop', async () => {
    const file = join(dir, 'paygate.sqlite');
    const db = openDatabase(`sqlite:${file}`, { backgroundCheckpoints: true });
    try {
      await write(db);
      assert.equal(await autocheckpointOf(db), BACKSTOP_PAGES);
      // The connection alone would not have checkpointed yet (8 MB is below the backstop): the file holds the rows
      // only once the worker copied them.
      await eventually('the log to be checkpointed into the database file', () => statSync(file).size > 8_000_000);
    } finally {
      await db.close();
    }
  });

  it('without them the connection checkpoints as SQLite does by default, at 1000 pages', async () => {
    const file = join(dir, 'paygate.sqlite');
    const db = openDatabase(`sqlite:${file}`);
    try {
      assert.equal(await autocheckpointOf(db), 1000);
      await write(db);
      assert.ok(statSync(file).size > 4_000_000, 'the commits past 1000 pages checkpointed');
    } finally {
      await db.close();
    }
  });
});
