import type { Knex } from 'knex';
import { dialectOf } from './dialect.js';

/**
 * Builds an index without blocking writes to its table on PostgreSQL (`CREATE INDEX CONCURRENTLY`), for migrations
 * that add an index to a table that may already hold millions of rows (docs/decisions.md §24.1). The migration must
 * export `config = { transaction: false }`: PostgreSQL refuses a concurrent build inside a transaction. A build that
 * was interrupted (a cancelled statement, a crash) leaves an INVALID index that `IF NOT EXISTS` would keep for ever,
 * so an invalid one is dropped first and built again. `definition` is what follows the index name:
 * `ON table (columns) [WHERE …]`, with `??` bindings in `bindings`.
 */
export async function createIndexConcurrently(
  knex: Knex,
  name: string,
  definition: string,
  bindings: readonly string[] = [],
): Promise<void> {
  if (dialectOf(knex) !== 'postgres') {
    await knex.raw(`CREATE INDEX IF NOT EXISTS ?? ${definition}`, [name, ...bindings]);
    return;
  }
  const invalid = (await knex.raw(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE c.relname = ? AND NOT i.indisvalid AND pg_catalog.pg_table_is_visible(c.oid)`,
    [name],
  )) as { rows: unknown[] };
  if (invalid.rows.length > 0) await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS ??', [name]);
  await knex.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ?? ${definition}`, [name, ...bindings]);
}

/** Drops an index built by `createIndexConcurrently`, concurrently on PostgreSQL. */
export async function dropIndexConcurrently(knex: Knex, name: string): Promise<void> {
  const postgres = dialectOf(knex) === 'postgres';
  await knex.raw(postgres ? 'DROP INDEX CONCURRENTLY IF EXISTS ??' : 'DROP INDEX IF EXISTS ??', [name]);
}
