import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  authenticateKey,
  createKey,
  createPartner,
  listKeys,
  revokeKey,
  rotateKey,
  type AccountsDeps,
  type CreatedKey,
} from '../../server/src/accounts/index.js';
import { ApiError } from '@paygate/server';
import { describeEachDatabase } from '../helpers/db.js';
import { testClock } from '../helpers/runtime.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function expectApiError(promise: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describeEachDatabase('accounts.keys', (get) => {
  const clock = testClock();
  let deps: AccountsDeps;
  let partnerId: string;

  before(async () => {
    deps = { db: get().db, now: clock.now };
    partnerId = (await createPartner(deps, { name: 'Keys partner' })).id;
  });

  describe('create', () => {
    const cases = [
      { kind: 'merchant', mode: 'test', format: /^sk_test_[0-9A-Za-z]{32}$/ },
      { kind: 'merchant', mode: 'live', format: /^sk_live_[0-9A-Za-z]{32}$/ },
      { kind: 'wallet', mode: 'test', format: /^wk_test_[0-9A-Za-z]{32}$/ },
      { kind: 'wallet', mode: 'live', format: /^wk_live_[0-9A-Za-z]{32}$/ },
      { kind: 'app', mode: 'test', format: /^app_test_[0-9A-Za-z]{24}$/ },
      { kind: 'app', mode: 'live', format: /^app_live_[0-9A-Za-z]{24}$/ },
    ] as const;

    for (const { kind, mode, format } of cases) {
      it(`mints a ${kind} ${mode} key whose format carries the mode`, async () => {
        const { key, secret } = await createKey(deps, { kind, mode, partnerId, label: `${kind} ${mode}` });
        assert.match(secret, format);
        assert.equal(key.kind, kind);
        assert.equal(key.mode, mode);
        assert.equal(key.prefix, secret.slice(0, 12));
        assert.equal(key.pinned_version, '2026-02-18');
        assert.equal(key.partner_id, partnerId);
        assert.equal(key.revoked_at, null);
        assert.ok(!('hash' in key), 'the returned key info has no hash');
      });
    }

    it('stores only the SHA-256 of the secret, never the secret', async () => {
      const { key, secret } = await createKey(deps, { kind: 'merchant', mode: 'live', partnerId });
      const row = (await get().db.knex('api_keys').where({ id: key.id }).first()) as Record<string, unknown>;
      assert.equal(row.hash, sha256(secret));
      for (const [column, value] of Object.entries(row)) {
        assert.ok(!String(value).includes(secret), `column ${column} holds the secret`);
        assert.ok(!String(value).includes(secret.slice(8)), `column ${column} holds the random part`);
      }
    });

    it('wallet keys and apps may have no partner', async () => {
      const wallet = await createKey(deps, { kind: 'wallet', mode: 'test' });
      const app = await createKey(deps, { kind: 'app', mode: 'live', label: 'Wallet app' });
      assert.equal(wallet.key.partner_id, null);
      assert.equal(app.key.partner_id, null);
      assert.equal(app.key.label, 'Wallet app');
    });

    it('a merchant key needs a partner', async () => {
      await expectApiError(createKey(deps, { kind: 'merchant', mode: 'test' }), 'params_validation', /partner/);
    });

    it('an unknown partner is partner_not_found', async () => {
      await expectApiError(
        createKey(deps, { kind: 'merchant', mode: 'test', partnerId: 'ptn_nobody' }),
        'partner_not_found',
      );
      await expectApiError(
        createKey(deps, { kind: 'app', mode: 'test', partnerId: 'ptn_nobody' }),
        'partner_not_found',
      );
    });

    it('a label with control characters is refused', async () => {
      await expectApiError(
        createKey(deps, { kind: 'wallet', mode: 'test', label: 'evil\u001b[2J' }),
        'params_validation',
      );
    });
  });

  describe('authenticate', () => {
    let merchant: CreatedKey;
    let wallet: CreatedKey;
    let app: CreatedKey;
    before(async () => {
      merchant = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId });
      wallet = await createKey(deps, { kind: 'wallet', mode: 'live' });
      app = await createKey(deps, { kind: 'app', mode: 'test' });
    });

    it('accepts an active key of the expected kind', async () => {
      const row = await authenticateKey(get().db, merchant.secret, 'merchant');
      assert.equal(row?.id, merchant.key.id);
      assert.equal(row?.mode, 'test');
      assert.equal(row?.partner_id, partnerId);
      assert.equal((await authenticateKey(get().db.knex, wallet.secret, 'wallet'))?.id, wallet.key.id);
      assert.equal((await authenticateKey(get().db, app.secret, 'app'))?.id, app.key.id);
    });

    it('accepts inside a transaction', async () => {
      const row = await get().db.knex.transaction((trx) => authenticateKey(trx, merchant.secret, 'merchant'));
      assert.equal(row?.id, merchant.key.id);
    });

    it('refuses a well-formed key that was never issued', async () => {
      const forged = merchant.secret.slice(0, -1) + (merchant.secret.endsWith('a') ? 'b' : 'a');
      assert.equal(await authenticateKey(get().db, forged, 'merchant'), null);
    });

    it('refuses a key of another kind', async () => {
      assert.equal(await authenticateKey(get().db, wallet.secret, 'merchant'), null);
      assert.equal(await authenticateKey(get().db, merchant.secret, 'wallet'), null);
      assert.equal(await authenticateKey(get().db, merchant.secret, 'app'), null);
    });

    it('refuses malformed keys', async () => {
      for (const bad of [
        '',
        'sk_test_',
        merchant.secret + 'x',
        merchant.secret.slice(0, -1),
        merchant.secret.replace('_test_', '_prod_'),
        merchant.secret.replace('sk_', 'pk_'),
        ` ${merchant.secret}`,
        merchant.key.prefix,
        sha256(merchant.secret),
      ]) {
        assert.equal(await authenticateKey(get().db, bad, 'merchant'), null, `accepted ${JSON.stringify(bad)}`);
      }
    });

    it('refuses a key that carries another mode than it was issued with', async () => {
      // Same random part, other mode: a different string, so a different hash.
      const flipped = merchant.secret.replace('sk_test_', 'sk_live_');
      assert.equal(await authenticateKey(get().db, flipped, 'merchant'), null);
    });

    it('refuses a revoked key', async () => {
      const doomed = await createKey(deps, { kind: 'wallet', mode: 'test' });
      assert.ok(await authenticateKey(get().db, doomed.secret, 'wallet'));
      await revokeKey(deps, doomed.key.id);
      assert.equal(await authenticateKey(get().db, doomed.secret, 'wallet'), null);
    });
  });

  describe('list', () => {
    it('lists by prefix without secrets or hashes', async () => {
      const created = await createKey(deps, { kind: 'merchant', mode: 'live', partnerId, label: 'listed' });
      const listed = await listKeys(deps, { prefix: created.key.prefix });
      assert.equal(listed.length, 1);
      assert.equal(listed[0]!.id, created.key.id);
      const text = JSON.stringify(listed);
      assert.ok(!text.includes(created.secret));
      assert.ok(!text.includes(sha256(created.secret)));
      assert.ok(!('hash' in listed[0]!));
    });

    it('matches the prefix case-sensitively on both databases', async () => {
      const created = await createKey(deps, { kind: 'wallet', mode: 'test' });
      const body = created.key.prefix.slice(8);
      const swapped = body.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      if (swapped === body) return; // an all-digit prefix has no case to swap
      const listed = await listKeys(deps, { prefix: `wk_test_${swapped}` });
      assert.ok(listed.every((k) => k.id !== created.key.id));
    });

    it('filters by partner and kind', async () => {
      const other = await createPartner(deps, { name: 'Other partner' });
      const mine = await createKey(deps, { kind: 'merchant', mode: 'test', partnerId: other.id });
      clock.advance(1); // lists are in creation order
      const app = await createKey(deps, { kind: 'app', mode: 'test', partnerId: other.id });
      assert.deepEqual(
        (await listKeys(deps, { partnerId: other.id })).map((k) => k.id),
        [mine.key.id, app.key.id],
      );
      assert.deepEqual(
        (await listKeys(deps, { partnerId: other.id, kind: 'app' })).map((k) => k.id),
        [app.key.id],
      );
      assert.ok((await listKeys(deps, { prefix: 'sk_' })).every((k) => k.kind === 'merchant'));
    });

    it('treats LIKE wildcards in the prefix literally', async () => {
      assert.deepEqual(await listKeys(deps, { prefix: '%' }), []);
      assert.deepEqual(await listKeys(deps, { prefix: 'sk%' }), []);
    });
  });

  describe('revoke', () => {
    it('revokes by prefix and by id', async () => {
      const a = await createKey(deps, { kind: 'app', mode: 'live' });
      clock.advance(1000);
      const revoked = await revokeKey(deps, a.key.prefix);
      assert.equal(revoked.id, a.key.id);
      assert.equal(revoked.revoked_at, clock.now());
      const b = await createKey(deps, { kind: 'app', mode: 'live' });
      assert.equal((await revokeKey(deps, b.key.id)).id, b.key.id);
      const listed = await listKeys(deps, { prefix: b.key.prefix });
      assert.notEqual(listed.find((k) => k.id === b.key.id)?.revoked_at, null);
    });

    it('an unknown prefix or id is api_key_not_found', async () => {
      await expectApiError(revokeKey(deps, 'sk_test_zzzz'), 'api_key_not_found');
      await expectApiError(revokeKey(deps, 'key_doesnotexist00'), 'api_key_not_found');
    });

    it('a revoked key cannot be revoked again', async () => {
      const a = await createKey(deps, { kind: 'wallet', mode: 'live' });
      await revokeKey(deps, a.key.id);
      await expectApiError(revokeKey(deps, a.key.id), 'api_key_not_found', /already revoked/);
      await expectApiError(revokeKey(deps, a.key.prefix), 'api_key_not_found');
    });

    it('refuses a prefix that matches more than one active key', async () => {
      await createKey(deps, { kind: 'wallet', mode: 'live' });
      await createKey(deps, { kind: 'wallet', mode: 'live' });
      const before = (await listKeys(deps, { prefix: 'wk_live_' })).filter((k) => k.revoked_at === null);
      assert.ok(before.length >= 2);
      await expectApiError(revokeKey(deps, 'wk_live_'), 'params_validation', /matches \d+ active keys/);
      const after = (await listKeys(deps, { prefix: 'wk_live_' })).filter((k) => k.revoked_at === null);
      assert.equal(after.length, before.length, 'nothing was revoked');
    });
  });

  describe('rotate', () => {
    it('replaces a key: the old one fails, the new one works, same partner, kind, mode and label', async () => {
      const old = await createKey(deps, { kind: 'merchant', mode: 'live', partnerId, label: 'rotating' });
      clock.advance(5000);
      const { revoked, created } = await rotateKey(deps, old.key.prefix);
      assert.equal(revoked.id, old.key.id);
      assert.equal(revoked.revoked_at, clock.now());
      assert.notEqual(created.key.id, old.key.id);
      assert.notEqual(created.secret, old.secret);
      assert.match(created.secret, /^sk_live_[0-9A-Za-z]{32}$/);
      assert.equal(created.key.kind, 'merchant');
      assert.equal(created.key.mode, 'live');
      assert.equal(created.key.partner_id, partnerId);
      assert.equal(created.key.label, 'rotating');
      assert.equal(created.key.pinned_version, old.key.pinned_version);
      assert.equal(await authenticateKey(get().db, old.secret, 'merchant'), null);
      assert.equal((await authenticateKey(get().db, created.secret, 'merchant'))?.id, created.key.id);
    });

    it('rotates a partnerless app by id', async () => {
      const old = await createKey(deps, { kind: 'app', mode: 'test' });
      const { created } = await rotateKey(deps, old.key.id);
      assert.match(created.secret, /^app_test_[0-9A-Za-z]{24}$/);
      assert.equal(created.key.partner_id, null);
    });

    it('an unknown or revoked key is api_key_not_found and mints nothing', async () => {
      const count = async () => (await listKeys(deps)).length;
      const n = await count();
      await expectApiError(rotateKey(deps, 'key_doesnotexist00'), 'api_key_not_found');
      const old = await createKey(deps, { kind: 'wallet', mode: 'test' });
      await revokeKey(deps, old.key.id);
      await expectApiError(rotateKey(deps, old.key.id), 'api_key_not_found');
      assert.equal(await count(), n + 1);
    });
  });
});
