import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, withDevelopmentSecrets } from '../../server/src/config.js';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { findMembership } from '../../server/src/db/queries/users.js';
import { verifyPassword } from '../../server/src/users/passwords.js';
import { findUserByEmail } from '../../server/src/users/userAccounts.js';
import { ServerKeys } from '../../server/src/users/serverKeys.js';
import type { UsersDeps } from '../../server/src/users/usersDeps.js';
import { cliEnv, expectFailure, parseJson, runCliInProcess } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

describe('cli.admin.createUser [sqlite]', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  let deps: UsersDeps;
  const dir = mkdtempSync(join(tmpdir(), 'paygate-create-user-'));
  const run = (...args: string[]) => runCliInProcess(args, env);
  const passwordFile = (password: string) => {
    const file = join(dir, `pw${randomBytes(4).toString('hex')}`);
    writeFileSync(file, `${password}\n`);
    return file;
  };

  before(async () => {
    t = await createTestDatabase('sqlite');
    env = { DATABASE_URL: t.url, PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}` };
    const config = withDevelopmentSecrets(loadConfig(cliEnv(env)));
    deps = {
      db: t.db,
      now: Date.now,
      secretBox: new SecretBox(config.encryptionKeys),
      serverKeys: new ServerKeys(config.encryptionKeys),
      config,
    };
  });
  after(async () => {
    await t.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create-user: a user with the password of --password-file, member of the merchant with the role', async () => {
    const { merchantId } = parseJson<{ merchantId: string }>(await run('admin', 'bootstrap', '--json'));
    const password = 'a long and unique passphrase';
    const created = parseJson<{ id: string; email: string; merchantId: string; role: string }>(
      await run(
        'admin',
        'create-user',
        '--email',
        ' Ada@Shop.Example.com ',
        '--merchant',
        merchantId,
        '--role',
        'developer',
        '--password-file',
        passwordFile(password),
        '--json',
      ),
    );
    assert.match(created.id, /^usr_[0-9A-Za-z]{16}$/);
    assert.deepEqual({ ...created, id: '' }, { id: '', email: 'ada@shop.example.com', merchantId, role: 'developer' });
    const user = await findUserByEmail(deps, 'ada@shop.example.com');
    assert.equal(user?.id, created.id);
    assert.ok(await verifyPassword(password, user!.password_hash));
    assert.ok(!(await verifyPassword(`${password}\n`, user!.password_hash)));
    assert.equal((await findMembership(t.db.knex, created.id, merchantId))?.role, 'developer');
    // Stored sealed: the address is nowhere readable in the row.
    const row = JSON.stringify(await t.db.knex('users').where({ id: created.id }).first());
    assert.ok(!row.toLowerCase().includes('ada@shop'));
  });

  it('create-user: refusals leave no user behind', async () => {
    const { merchantId } = parseJson<{ merchantId: string }>(await run('admin', 'bootstrap', '--json'));
    const ok = passwordFile('a long and unique passphrase');
    const base = ['admin', 'create-user', '--email', 'grace@shop.example.com'];
    expectFailure(await run(...base, '--merchant', merchantId, '--role', 'admin', '--password-file', ok), 2, /--role/);
    expectFailure(await run(...base, '--role', 'viewer', '--password-file', ok), 2, /--merchant/);
    expectFailure(
      await run(...base, '--merchant', 'mer_Zz9Yy8Xx7Ww6Vv5U', '--role', 'viewer', '--password-file', ok),
      1,
      /merchant_not_found/,
    );
    expectFailure(
      await run(...base, '--merchant', merchantId, '--role', 'viewer', '--password-file', passwordFile('too short')),
      1,
      /params_validation/,
    );
    assert.equal(await findUserByEmail(deps, 'grace@shop.example.com'), null);
    await run(...base, '--merchant', merchantId, '--role', 'viewer', '--password-file', ok);
    expectFailure(
      await run(...base, '--merchant', merchantId, '--role', 'viewer', '--password-file', ok),
      1,
      /invalid_state/,
    );
  });
});
