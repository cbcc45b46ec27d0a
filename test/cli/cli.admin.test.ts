import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { authenticateKey } from '../../server/src/accounts/index.js';
import { findMerchant, findPartner } from '../../server/src/db/queries/accounts.js';
import { expectBootstrapFormats, expectFailure, parseJson, runCliInProcess, type KeyJson } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const EVM = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('cli.admin [sqlite]', function () {
  let t: TestDatabase;
  let env: Record<string, string>;
  const run = (...args: string[]) => runCliInProcess(args, env);

  before(async () => {
    t = await createTestDatabase('sqlite');
    env = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}` };
  });
  after(async () => {
    await t.drop();
  });

  it('bootstrap --json prints the eight credentials, which work', async () => {
    const c = parseJson<Record<string, string>>(await run('admin', 'bootstrap', '--json'));
    expectBootstrapFormats(c);
    assert.equal((await findPartner(t.db.knex, c.partnerId!))?.name, 'Demo partner');
    const merchant = await findMerchant(t.db.knex, c.merchantId!);
    assert.equal(merchant?.name, 'Demo merchant');
    assert.equal(merchant?.settlement_addresses['eip155:31337'], EVM);
    const key = await authenticateKey(t.db, c.merchantApiKeyLive!, 'merchant');
    assert.equal(key?.partner_id, c.partnerId);
    assert.equal(key?.mode, 'live');
    assert.equal((await authenticateKey(t.db, c.walletApiKey!, 'wallet'))?.mode, 'test');
    assert.equal((await authenticateKey(t.db, c.appIdLive!, 'app'))?.mode, 'live');
  });

  it('create-partner and create-merchant with every option', async () => {
    const partner = parseJson<{ id: string; name: string; createdAt: string }>(
      await run('admin', 'create-partner', '--name', 'Acme', '--json'),
    );
    assert.match(partner.id, /^ptn_/);
    assert.equal(partner.name, 'Acme');
    assert.ok(!Number.isNaN(Date.parse(partner.createdAt)));

    const merchant = parseJson(
      await run(
        'admin',
        'create-merchant',
        '--partner',
        partner.id,
        '--name',
        'Acme shop',
        '--fee-base',
        '30',
        '--fee-currency',
        'eur',
        '--fee-percent',
        '29/1000',
        '--settlement',
        `eip155:8453=${EVM}`,
        '--settlement',
        'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp=FLvHWdhyi8YQeQeTWAyY4ncDBx5CzQ8EFGMd5HzowfHo',
        '--id',
        'mer_acme',
        '--json',
      ),
    );
    const fee = {
      kind: 'base_plus_percent',
      base: { unit: 'iso4217/EUR', value: '30' },
      percent: { numerator: '29', denominator: '1000' },
    };
    const addresses = {
      'eip155:8453': EVM,
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'FLvHWdhyi8YQeQeTWAyY4ncDBx5CzQ8EFGMd5HzowfHo',
    };
    assert.deepEqual(merchant, {
      id: 'mer_acme',
      partnerId: partner.id,
      name: 'Acme shop',
      iconUrl: null,
      feeConfig: fee,
      settlementAddresses: addresses,
      createdAt: merchant.createdAt,
    });
    const stored = await findMerchant(t.db.knex, 'mer_acme');
    assert.deepEqual(stored?.fee_config, fee);
    assert.deepEqual(stored?.settlement_addresses, addresses);

    expectFailure(
      await run('admin', 'create-merchant', '--partner', partner.id, '--name', 'Again', '--id', 'mer_acme'),
      1,
      /\(merchant_exists\)$/,
    );
  });

  it('domain errors exit 1 with one line naming the code', async () => {
    expectFailure(
      await run('admin', 'create-merchant', '--partner', 'ptn_nobody', '--name', 'Orphan', '--json'),
      1,
      /No partner with id "ptn_nobody" \(partner_not_found\)$/,
    );
    expectFailure(
      await run('admin', 'create-api-key', '--partner', 'ptn_nobody', '--mode', 'test'),
      1,
      /\(partner_not_found\)$/,
    );
    const partner = parseJson<{ id: string }>(await run('admin', 'create-partner', '--name', 'P', '--json'));
    expectFailure(
      await run('admin', 'create-merchant', '--partner', partner.id, '--name', 'M', '--settlement', 'cosmos:hub-4=abc'),
      1,
      /cosmos:hub-4.*\(params_validation\)$/,
    );
    expectFailure(await run('admin', 'revoke-key', 'sk_test_none'), 1, /\(api_key_not_found\)$/);
  });

  describe('keys', () => {
    let partnerId: string;
    before(async () => {
      partnerId = parseJson<{ id: string }>(await run('admin', 'create-partner', '--name', 'Keys', '--json')).id;
    });

    it('create-api-key, create-wallet-key and create-app print the key once and store its hash', async () => {
      const merchant = parseJson<KeyJson>(
        await run('admin', 'create-api-key', '--partner', partnerId, '--mode', 'live', '--label', 'backend', '--json'),
      );
      assert.match(merchant.key!, /^sk_live_[0-9A-Za-z]{32}$/);
      assert.equal(merchant.kind, 'merchant');
      assert.equal(merchant.mode, 'live');
      assert.equal(merchant.prefix, merchant.key!.slice(0, 12));
      assert.equal(merchant.partnerId, partnerId);
      assert.equal(merchant.label, 'backend');
      assert.equal(merchant.pinnedVersion, '2026-02-18');
      assert.equal(merchant.revokedAt, null);
      const row = (await t.db.knex('api_keys').where({ id: merchant.id }).first()) as Record<string, unknown>;
      assert.equal(row.hash, sha256(merchant.key!));
      assert.ok(!Object.values(row).some((v) => String(v).includes(merchant.key!)));

      const wallet = parseJson<KeyJson>(await run('admin', 'create-wallet-key', '--mode', 'test', '--json'));
      assert.match(wallet.key!, /^wk_test_[0-9A-Za-z]{32}$/);
      assert.equal(wallet.partnerId, null);
      const app = parseJson<KeyJson>(
        await run('admin', 'create-app', '--mode', 'live', '--partner', partnerId, '--label', 'Wallet app', '--json'),
      );
      assert.match(app.key!, /^app_live_[0-9A-Za-z]{24}$/);
      assert.equal(app.partnerId, partnerId);
      assert.ok(await authenticateKey(t.db, app.key!, 'app'));

      const human = await run('admin', 'create-wallet-key', '--mode', 'live');
      assert.equal(human.code, 0);
      assert.match(human.stdout, /^\s+wk_live_[0-9A-Za-z]{32}$/m);
    });

    it('create-api-key --refunds makes a key allowed to send refunds that need an owner; without it, not', async () => {
      const allowed = parseJson<KeyJson>(
        await run('admin', 'create-api-key', '--partner', partnerId, '--mode', 'live', '--refunds', '--json'),
      );
      const plain = parseJson<KeyJson>(
        await run('admin', 'create-api-key', '--partner', partnerId, '--mode', 'live', '--json'),
      );
      const canRefund = async (id: string) =>
        Boolean(((await t.db.knex('api_keys').where({ id }).first()) as { can_refund: unknown }).can_refund);
      assert.deepEqual([await canRefund(allowed.id), await canRefund(plain.id)], [true, false]);
      const walletRefunds = await run('admin', 'create-wallet-key', '--mode', 'test', '--refunds');
      assert.notEqual(walletRefunds.code, 0, 'only a merchant key can send refunds');
    });

    it('list-keys shows prefixes, never secrets or hashes', async () => {
      const created = parseJson<KeyJson>(
        await run('admin', 'create-api-key', '--partner', partnerId, '--mode', 'test', '--json'),
      );
      const listed = await run('admin', 'list-keys', '--partner', partnerId, '--json');
      const { keys } = parseJson<{ keys: KeyJson[] }>(listed);
      assert.ok(keys.length >= 1);
      assert.ok(keys.every((k) => k.key === undefined && !('hash' in k)));
      assert.deepEqual(Object.keys(keys.find((k) => k.id === created.id)!), [
        'id',
        'kind',
        'mode',
        'prefix',
        'partnerId',
        'label',
        'pinnedVersion',
        'createdAt',
        'revokedAt',
      ]);
      for (const text of [listed.stdout, (await run('admin', 'list-keys')).stdout]) {
        assert.ok(text.includes(created.prefix));
        assert.ok(!text.includes(created.key!), 'no secret');
        assert.ok(!text.includes(sha256(created.key!)), 'no hash');
      }
      const byPrefix = parseJson<{ keys: KeyJson[] }>(
        await run('admin', 'list-keys', '--prefix', created.prefix, '--kind', 'merchant', '--json'),
      );
      assert.deepEqual(
        byPrefix.keys.map((k) => k.id),
        [created.id],
      );
    });

    it('revoke-key by prefix: the key stops working', async () => {
      const created = parseJson<KeyJson>(await run('admin', 'create-app', '--mode', 'test', '--json'));
      const revoked = parseJson<KeyJson>(await run('admin', 'revoke-key', created.prefix, '--json'));
      assert.equal(revoked.id, created.id);
      assert.ok(revoked.revokedAt && !Number.isNaN(Date.parse(revoked.revokedAt)));
      assert.equal(await authenticateKey(t.db, created.key!, 'app'), null);
      expectFailure(await run('admin', 'revoke-key', created.id), 1, /already revoked \(api_key_not_found\)$/);
    });

    it('revoke-key refuses an ambiguous prefix', async () => {
      await run('admin', 'create-wallet-key', '--mode', 'test');
      expectFailure(await run('admin', 'revoke-key', 'wk_test_'), 1, /matches \d+ active keys.*give the key id/);
    });

    it('rotate-key by id: the old key fails, the new one works with the same partner, kind and mode', async () => {
      const old = parseJson<KeyJson>(
        await run('admin', 'create-api-key', '--partner', partnerId, '--mode', 'test', '--label', 'pos', '--json'),
      );
      const { revoked, created } = parseJson<{ revoked: KeyJson; created: KeyJson }>(
        await run('admin', 'rotate-key', old.id, '--json'),
      );
      assert.equal(revoked.id, old.id);
      assert.notEqual(revoked.revokedAt, null);
      assert.match(created.key!, /^sk_test_[0-9A-Za-z]{32}$/);
      assert.equal(created.partnerId, partnerId);
      assert.equal(created.label, 'pos');
      assert.equal(created.revokedAt, null);
      assert.equal(await authenticateKey(t.db, old.key!, 'merchant'), null);
      assert.equal((await authenticateKey(t.db, created.key!, 'merchant'))?.id, created.id);
    });
  });
});
