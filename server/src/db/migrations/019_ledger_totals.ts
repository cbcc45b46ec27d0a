import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

/**
 * Issue 36 (docs/decisions.md §24.10): a balance read summed every ledger row of the merchant, so it grew with the
 * history. `ledger_totals` holds, per merchant, mode (live), settlement mode, chain, asset, address and kind, the exact
 * sum of the entries: what `sumLedger` groups by. Triggers on `ledger_entries` keep it, in the statement (and so the
 * transaction) that writes the entries, whichever code writes them: the ledger has writers in a dozen settlement
 * modules, and a total that one new writer forgot would be wrong for ever.
 *
 * Exact on both databases. PostgreSQL: `amount numeric`, one statement-level trigger per operation that adds the
 * statement's rows grouped and in key order (`insert … on conflict do update set amount = amount + excluded.amount`:
 * atomic under concurrent writers, and rows locked in one order). SQLite has no exact type wider than 64 bits and
 * token amounts pass 2^63 (10 ETH in wei), so a total is nine integer limbs of nine decimal digits each (the entry's
 * amount cut into 9-digit parts, each part added to its limb without carry): a limb overflows only after ~9·10^9
 * entries of one key, and the reader puts the value together with BigInt. A row trigger adds each entry; SQLite
 * runs one writer at a time, so the upsert cannot lose an update.
 *
 * An address of NULL is stored as '' (a primary key column cannot be NULL); the reader gives NULL back.
 */
export const LIMBS = 9;
const limbs = Array.from({ length: LIMBS }, (_, i) => `d${i}`);
const KEY = ['merchant_id', 'live', 'mode', 'chain_caip2', 'asset_caip19', 'address', 'kind'];

/** SQLite: the 9-digit part `i` (0 = lowest) of a decimal text, 0 past its length. */
const part = (col: string, i: number) => `coalesce(cast(nullif(substr(${col}, ${-9 * (i + 1)}, 9), '') as integer), 0)`;

function keyOf(row: 'new' | 'old'): string {
  return KEY.map((c) => (c === 'address' ? `coalesce(${row}.address, '')` : `${row}.${c}`)).join(', ');
}

function sqliteTrigger(name: string, event: string, row: 'new' | 'old', sign: '+' | '-'): string {
  return `create trigger ${name} after ${event} on ledger_entries begin
    insert into ledger_totals (${KEY.join(', ')}, ${limbs.join(', ')})
      values (${keyOf(row)}, ${limbs.map((_, i) => `${sign === '-' ? '-' : ''}${part(`${row}.amount`, i)}`).join(', ')})
      on conflict (${KEY.join(', ')}) do update set ${limbs.map((l) => `${l} = ${l} + excluded.${l}`).join(', ')};
  end`;
}

async function createSqlite(knex: Knex.Transaction): Promise<void> {
  await knex.raw(`create table if not exists ledger_totals (
    merchant_id text not null, live boolean not null, mode text not null, chain_caip2 text not null,
    asset_caip19 text not null, address text not null, kind text not null,
    ${limbs.map((l) => `${l} integer not null default 0`).join(', ')},
    primary key (${KEY.join(', ')})
  )`);
  for (const name of [
    'ledger_totals_insert',
    'ledger_totals_delete',
    'ledger_totals_update_old',
    'ledger_totals_update_new',
  ])
    await knex.raw(`drop trigger if exists ${name}`);
  await knex.raw(sqliteTrigger('ledger_totals_insert', 'insert', 'new', '+'));
  await knex.raw(sqliteTrigger('ledger_totals_delete', 'delete', 'old', '-'));
  await knex.raw(sqliteTrigger('ledger_totals_update_old', 'update', 'old', '-'));
  await knex.raw(sqliteTrigger('ledger_totals_update_new', 'update', 'new', '+'));
  await knex('ledger_totals').delete();
  await knex.raw(`insert into ledger_totals (${KEY.join(', ')}, ${limbs.join(', ')})
    select merchant_id, live, mode, chain_caip2, asset_caip19, coalesce(address, ''), kind,
      ${limbs.map((_, i) => `sum(${part('amount', i)})`).join(', ')}
    from ledger_entries group by merchant_id, live, mode, chain_caip2, asset_caip19, coalesce(address, ''), kind`);
}

/** PostgreSQL: adds (or, for `old_rows`, takes away) a statement's entries, grouped, in key order. */
function pgAdd(rows: 'new_rows' | 'old_rows', sign: '' | '-'): string {
  return `insert into ledger_totals (${KEY.join(', ')}, amount)
      select merchant_id, live, mode, chain_caip2, asset_caip19, coalesce(address, ''), kind, ${sign}sum(amount::numeric)
      from ${rows} group by 1, 2, 3, 4, 5, 6, 7 order by 1, 2, 3, 4, 5, 6, 7
      on conflict (${KEY.join(', ')}) do update set amount = ledger_totals.amount + excluded.amount;`;
}

async function createPostgres(knex: Knex.Transaction): Promise<void> {
  await knex.raw(`create table if not exists ledger_totals (
    merchant_id text not null, live boolean not null, mode text not null, chain_caip2 text not null,
    asset_caip19 text not null, address text not null, kind text not null, amount numeric not null,
    primary key (${KEY.join(', ')})
  )`);
  // Writers of the old code still running wait until the triggers exist and the backfill is done, so no entry is
  // committed that neither the backfill's snapshot nor a trigger sees; reads go on.
  await knex.raw('lock table ledger_entries in share row exclusive mode');
  await knex.raw(`create or replace function ledger_totals_insert() returns trigger language plpgsql as $$
    begin ${pgAdd('new_rows', '')} return null; end $$`);
  await knex.raw(`create or replace function ledger_totals_delete() returns trigger language plpgsql as $$
    begin ${pgAdd('old_rows', '-')} return null; end $$`);
  await knex.raw(`create or replace function ledger_totals_update() returns trigger language plpgsql as $$
    begin ${pgAdd('old_rows', '-')} ${pgAdd('new_rows', '')} return null; end $$`);
  for (const op of ['insert', 'delete', 'update'])
    await knex.raw(`drop trigger if exists ledger_totals_${op} on ledger_entries`);
  await knex.raw(`create trigger ledger_totals_insert after insert on ledger_entries
    referencing new table as new_rows for each statement execute function ledger_totals_insert()`);
  await knex.raw(`create trigger ledger_totals_delete after delete on ledger_entries
    referencing old table as old_rows for each statement execute function ledger_totals_delete()`);
  await knex.raw(`create trigger ledger_totals_update after update on ledger_entries
    referencing old table as old_rows new table as new_rows for each statement execute function ledger_totals_update()`);
  await knex('ledger_totals').delete();
  await knex.raw(`insert into ledger_totals (${KEY.join(', ')}, amount)
    select merchant_id, live, mode, chain_caip2, asset_caip19, coalesce(address, ''), kind, sum(amount::numeric)
    from ledger_entries group by 1, 2, 3, 4, 5, 6, 7`);
}

/** Creates the table and its triggers and fills it from the entries there; run again, it rebuilds the totals. */
export async function up(knex: Knex): Promise<void> {
  await knex.transaction((trx) => (dialectOf(knex) === 'postgres' ? createPostgres(trx) : createSqlite(trx)));
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex) === 'postgres') {
    for (const op of ['insert', 'delete', 'update']) {
      await knex.raw(`drop trigger if exists ledger_totals_${op} on ledger_entries`);
      await knex.raw(`drop function if exists ledger_totals_${op}()`);
    }
  } else {
    for (const name of [
      'ledger_totals_insert',
      'ledger_totals_delete',
      'ledger_totals_update_old',
      'ledger_totals_update_new',
    ])
      await knex.raw(`drop trigger if exists ${name}`);
  }
  await knex.schema.dropTableIfExists('ledger_totals');
}
