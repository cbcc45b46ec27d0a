/**
 * A release running on a schema a newer release has migrated (docs/decisions.md §29.22): during an upgrade the old
 * processes serve while the new release's expand-only migrations are applied, and a rollback starts the old release
 * on the new schema. knex's list validation called such a database "corrupt": the old processes' /readyz answered
 * 503 (the full rehearsal's step 4) and a restarted old process could not start.
 */
import assert from 'node:assert/strict';
import { migrateDatabase, migrationsCurrent } from '@paygate/server';
import { describeEachDatabase } from '../helpers/db.js';

// What a later release leaves in the table: a migration this code has never heard of.
const future = { name: '999_from_a_later_release', batch: 99, migration_time: new Date() };

describeEachDatabase('ops.migrate on a newer schema', (get) => {
  afterEach(async () => {
    await get().db.knex('paygate_migrations').where({ name: future.name }).delete();
  });

  it('a schema ahead of the code counts as current for readiness, and migrating applies nothing', async () => {
    const { db } = get();
    await db.knex('paygate_migrations').insert(future);
    assert.equal(await migrationsCurrent(db), true);
    assert.deepEqual(await migrateDatabase(db), []);
  });

  it('a schema ahead of the code but missing one of its migrations is behind, and migrating refuses to guess', async () => {
    const { db } = get();
    const [last] = (await db.knex('paygate_migrations').orderBy('name', 'desc').limit(1)) as { name: string }[];
    await db.knex('paygate_migrations').where({ name: last!.name }).delete();
    await db.knex('paygate_migrations').insert(future);
    try {
      assert.equal(await migrationsCurrent(db), false);
      await assert.rejects(migrateDatabase(db), (err: Error) => {
        assert.match(err.message, /999_from_a_later_release/);
        assert.match(err.message, new RegExp(last!.name));
        return true;
      });
    } finally {
      await db.knex('paygate_migrations').insert({ name: last!.name, batch: 1, migration_time: new Date() });
    }
  });
});
