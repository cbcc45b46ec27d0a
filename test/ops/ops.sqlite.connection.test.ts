/**
 * SQLite's one connection (db/connect.ts): lent to one query or transaction at a time, in arrival order, and
 * keeping the statements it prepared, by SQL text, so knex binds and runs the same statement again instead of
 * preparing it on every query.
 */
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, type Database } from '@paygate/server';
import { SqliteConnection } from '../../server/src/db/connect.js';

describe('ops.sqlite.connection', () => {
  describe('lending', () => {
    it('lends the connection to one borrower at a time, then to the others in the order they asked', async () => {
      const pool = new SqliteConnection(() => new BetterSqlite3(':memory:'));
      const first = await pool.acquire().promise;
      const order: number[] = [];
      const second = pool.acquire().promise.then((c) => (order.push(2), c));
      const third = pool.acquire().promise.then((c) => (order.push(3), c));
      assert.equal(pool.numPendingAcquires(), 2);
      await Promise.resolve();
      assert.deepEqual(order, [], 'nobody gets it while it is lent');
      assert.equal(pool.release(first), true);
      assert.equal(await second, first);
      assert.deepEqual(order, [2]);
      assert.equal(pool.numUsed(), 1, 'handed straight to the next, never free in between');
      pool.release(first);
      assert.equal(await third, first);
      pool.release(first);
      assert.equal(pool.numUsed(), 0);
      assert.equal(pool.numFree(), 1);
      await pool.destroy();
    });

    it('refuses a connection it did not lend; closing fails the waiters and waits for the borrower', async () => {
      const pool = new SqliteConnection(() => new BetterSqlite3(':memory:'));
      const lent = await pool.acquire().promise;
      const stranger = new BetterSqlite3(':memory:');
      assert.equal(pool.release(stranger), false);
      stranger.close();
      const waiting = pool.acquire().promise;
      let closed = false;
      const closing = pool.destroy().then(() => (closed = true));
      await assert.rejects(waiting, /closed/);
      await assert.rejects(pool.acquire().promise, /closed/);
      assert.equal(closed, false, 'the borrower is not cut off');
      assert.equal(lent.open, true);
      pool.release(lent);
      await closing;
      assert.equal(lent.open, false);
    });

    it('fails the query when the file cannot be opened, and tries again on the next one', async () => {
      let attempts = 0;
      const pool = new SqliteConnection(() => {
        attempts++;
        if (attempts === 1) throw new Error('unable to open database file');
        return new BetterSqlite3(':memory:');
      });
      await assert.rejects(pool.acquire().promise, /unable to open/);
      const conn = await pool.acquire().promise;
      assert.equal(conn.open, true);
      pool.release(conn);
      await pool.destroy();
    });
  });

  describe('statements', () => {
    let db: Database;
    let conn: BetterSqlite3.Database;

    before(async () => {
      db = openDatabase('sqlite::memory:');
      conn = (await db.knex.client.acquireConnection()) as BetterSqlite3.Database;
      await db.knex.client.releaseConnection(conn);
      await db.knex.schema.createTable('things', (t) => {
        t.string('id').primary();
        t.integer('n');
      });
    });
    after(() => db.close());

    it('prepares a text once and hands the same statement out again', () => {
      const sql = 'select * from `things` where `id` = ?';
      assert.equal(conn.prepare(sql), conn.prepare(sql));
      assert.notEqual(conn.prepare(sql), conn.prepare(`${sql} limit 1`));
    });

    it('keeps a bounded number of statements, the most recent ones', () => {
      const first = conn.prepare('select 1 as first');
      for (let i = 0; i < 600; i++) conn.prepare(`select ${i} as n`);
      assert.notEqual(conn.prepare('select 1 as first'), first, 'the oldest was let go and is prepared anew');
    });

    it('runs reused statements with each call’s bindings, in and out of transactions', async () => {
      await db.knex('things').insert({ id: 'a', n: 1 });
      await db.knex('things').insert({ id: 'b', n: 2 });
      const n = async (id: string, q: typeof db.knex = db.knex) =>
        ((await q('things').where({ id }).first()) as { n: number } | undefined)?.n;
      assert.equal(await n('a'), 1);
      assert.equal(await n('b'), 2);
      await db.knex
        .transaction(async (trx) => {
          await trx('things').where({ id: 'a' }).update({ n: 10 });
          assert.equal(await n('a', trx), 10);
          throw new Error('roll back');
        })
        .catch(() => undefined);
      assert.equal(await n('a'), 1);
    });

    it('follows a schema change: a reused `select *` sees a new column', async () => {
      const read = () => db.knex('things').where({ id: 'a' }).first() as Promise<Record<string, unknown>>;
      assert.deepEqual(Object.keys(await read()), ['id', 'n']);
      await db.knex.schema.alterTable('things', (t) => t.string('label').nullable());
      assert.deepEqual(Object.keys(await read()), ['id', 'n', 'label']);
    });
  });
});
