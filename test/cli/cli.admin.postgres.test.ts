import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { authenticateKey } from '../../server/src/accounts/index.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import {
  BOOTSTRAP_FIELDS,
  expectBootstrapFormats,
  parseJson,
  runCli,
  runCliInProcess,
  type KeyJson,
} from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('cli.admin [postgres]', () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase('postgres');
  });
  after(async () => {
    await t.drop();
  });

  it('uses the database DATABASE_URL names: migrate, bootstrap, list, rotate', async () => {
    const env = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}` };
    assert.deepEqual(parseJson(await runCliInProcess(['migrate', '--json'], env)), { applied: [] });
    // The real bin for one admin command: its DATABASE_URL comes from the process environment.
    const c = parseJson<Record<string, string>>(await runCli(['admin', 'bootstrap', '--json'], env));
    expectBootstrapFormats(c);
    assert.equal((await findMerchant(t.db.knex, c.merchantId!))?.partner_id, c.partnerId);
    const row = (await t.db
      .knex('api_keys')
      .where({ hash: sha256(c.walletApiKeyLive!) })
      .first()) as { kind: string; mode: string } | undefined;
    assert.equal(row?.kind, 'wallet');
    assert.equal(row?.mode, 'live');

    const listed = await runCliInProcess(['admin', 'list-keys', '--json'], env);
    const { keys } = parseJson<{ keys: KeyJson[] }>(listed);
    assert.equal(keys.length, 6);
    for (const field of BOOTSTRAP_FIELDS.slice(2)) assert.ok(!listed.stdout.includes(c[field]!));

    const merchantKey = keys.find((k) => k.kind === 'merchant' && k.mode === 'test')!;
    const { created } = parseJson<{ created: KeyJson }>(
      await runCliInProcess(['admin', 'rotate-key', merchantKey.id, '--json'], env),
    );
    assert.equal(await authenticateKey(t.db, c.merchantApiKey!, 'merchant'), null);
    assert.equal((await authenticateKey(t.db, created.key!, 'merchant'))?.partner_id, c.partnerId);
  });
});
