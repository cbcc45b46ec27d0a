/**
 * `paygate admin create-merchant --collect-data`: the merchant flag that makes every payment require the buyer's
 * data (docs/decisions.md §16), through the real bin and through the accounts module.
 */
import assert from 'node:assert/strict';
import { createMerchant, createPartner } from '../../server/src/accounts/merchants.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { parseJson, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('collect.admin.createMerchant', () => {
  let t: TestDatabase;
  const run = (...args: string[]) => runCli(args, { DATABASE_URL: t.url });

  before(async () => {
    t = await createTestDatabase('sqlite');
  });
  after(async () => {
    await t.drop();
  });

  it('--collect-data sets the flag and says so', async () => {
    const partner = parseJson<{ id: string }>(await run('admin', 'create-partner', '--name', 'Travel rule', '--json'));
    const flagged = await run(
      'admin',
      'create-merchant',
      '--partner',
      partner.id,
      '--name',
      'Exchange',
      '--collect-data',
    );
    assert.equal(flagged.code, 0, flagged.stderr);
    const id = /Created merchant (\S+) /.exec(flagged.stdout)?.[1];
    assert.ok(id, flagged.stdout);
    assert.match(flagged.stdout, /every payment requires the buyer's identity data/);
    assert.equal((await findMerchant(t.db.knex, id))?.collect_data, true);
  });

  it('documents the flag in the command help', async () => {
    const help = await run('admin', 'create-merchant', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--collect-data +every payment requires the buyer's identity data/);
  });

  it('createMerchant stores collectData, false by default', async () => {
    const deps = { db: t.db, now: () => Date.UTC(2026, 1, 18) };
    const partner = await createPartner(deps, { name: 'Module' });
    const yes = await createMerchant(deps, { partnerId: partner.id, name: 'Yes', collectData: true });
    const no = await createMerchant(deps, { partnerId: partner.id, name: 'No' });
    assert.equal(yes.collect_data, true);
    assert.equal((await findMerchant(t.db.knex, yes.id))?.collect_data, true);
    assert.equal((await findMerchant(t.db.knex, no.id))?.collect_data, false);
  });
});
