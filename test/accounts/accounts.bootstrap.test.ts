import assert from 'node:assert/strict';
import {
  authenticateKey,
  bootstrapDevelopment,
  createDemoAccounts,
  listKeys,
  type AccountsDeps,
} from '../../server/src/accounts/index.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';

describeEachDatabase('accounts.bootstrap.demo', (get) => {
  it('creates the demo partner and merchant with test and live keys of every kind', async () => {
    const deps: AccountsDeps = { db: get().db, now: testClock().now };
    const c = await createDemoAccounts(deps);
    assert.deepEqual(Object.keys(c), [
      'partnerId',
      'merchantId',
      'merchantApiKey',
      'merchantApiKeyLive',
      'walletApiKey',
      'walletApiKeyLive',
      'appId',
      'appIdLive',
    ]);
    assert.match(c.merchantApiKey, /^sk_test_/);
    assert.match(c.merchantApiKeyLive, /^sk_live_/);
    assert.match(c.walletApiKey, /^wk_test_/);
    assert.match(c.walletApiKeyLive, /^wk_live_/);
    assert.match(c.appId, /^app_test_/);
    assert.match(c.appIdLive, /^app_live_/);

    const merchantKey = await authenticateKey(get().db, c.merchantApiKeyLive, 'merchant');
    assert.equal(merchantKey?.partner_id, c.partnerId);
    assert.ok(await authenticateKey(get().db, c.walletApiKey, 'wallet'));
    assert.ok(await authenticateKey(get().db, c.appIdLive, 'app'));

    const merchant = await findMerchant(get().db.knex, c.merchantId);
    assert.equal(merchant?.name, 'Demo merchant');
    assert.equal(merchant?.partner_id, c.partnerId);
    // anvil's account #1, and the local Solana chain's documented settlement owner.
    assert.deepEqual(merchant?.settlement_addresses, {
      'eip155:31337': '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      'solana:MfQzePv71xeCmNoR86q2ibum1QgT6UZj': '37xNMmypvdazAkTFfJcnYV3bMb2k26fC4kxJqrqj4bXH',
    });
    assert.deepEqual(merchant?.fee_config, {
      kind: 'base_plus_percent',
      base: { unit: 'iso4217/USD', value: '30' },
      percent: { numerator: '29', denominator: '1000' },
    });
  });

  it('a second bootstrap creates a second, separate demo', async () => {
    const deps: AccountsDeps = { db: get().db, now: testClock().now };
    const before = (await listKeys(deps)).length;
    const c = await createDemoAccounts(deps);
    assert.equal((await listKeys(deps)).length, before + 6);
    assert.ok(await authenticateKey(get().db, c.merchantApiKey, 'merchant'));
  });
});

describe('accounts.bootstrap.development', () => {
  const opened: TestDatabase[] = [];
  const fresh = async (dialect: 'sqlite' | 'postgres') => {
    const t = await createTestDatabase(dialect);
    opened.push(t);
    return { db: t.db, now: testClock().now } satisfies AccountsDeps;
  };
  after(async () => {
    for (const t of opened) await t.drop();
  });

  it('on an empty embedded database in development, creates test credentials only, once', async () => {
    const deps = await fresh('sqlite');
    const c = await bootstrapDevelopment(deps, 'development');
    assert.ok(c);
    assert.deepEqual(Object.keys(c).sort(), ['appId', 'merchantApiKey', 'merchantId', 'partnerId', 'walletApiKey']);
    assert.match(c.merchantApiKey, /^sk_test_/);
    assert.match(c.walletApiKey, /^wk_test_/);
    assert.match(c.appId, /^app_test_/);
    const keys = await listKeys(deps);
    assert.equal(keys.length, 3);
    assert.ok(
      keys.every((k) => k.mode === 'test'),
      'no live key is ever minted on its own',
    );
    assert.ok(await authenticateKey(deps.db, c.merchantApiKey, 'merchant'));

    assert.equal(await bootstrapDevelopment(deps, 'development'), null);
    assert.equal((await listKeys(deps)).length, 3);
  });

  it('does nothing outside development', async () => {
    const deps = await fresh('sqlite');
    assert.equal(await bootstrapDevelopment(deps, 'staging'), null);
    assert.equal(await bootstrapDevelopment(deps, 'production'), null);
    assert.equal((await listKeys(deps)).length, 0);
  });

  it('does nothing on PostgreSQL', async () => {
    const deps = await fresh('postgres');
    assert.equal(await bootstrapDevelopment(deps, 'development'), null);
    assert.equal((await listKeys(deps)).length, 0);
  });
});
