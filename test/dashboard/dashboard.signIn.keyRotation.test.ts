/**
 * Putting a new encryption key first in PAYGATE_ENCRYPTION_KEY (the first step of a rotation, docs/decisions.md §29)
 * must not lock anyone out: the email lookup hash derives from the first key, so a user stored under the old key is
 * found by the hash under any configured key until the rotation re-hashes the row.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../server/src/crypto/secretBox.js';
import { createUser, emailOf, findUserByEmail } from '../../server/src/users/userAccounts.js';
import { verifyPassword } from '../../server/src/users/passwords.js';
import { ServerKeys } from '../../server/src/users/serverKeys.js';
import type { UsersDeps } from '../../server/src/users/usersDeps.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';

const key = (id: string) => ({ id, key: randomBytes(32) });

describeEachDatabase('dashboard.signIn key rotation', (database) => {
  function deps(keys: { id: string; key: Buffer }[]): UsersDeps {
    return {
      db: database().db,
      now: () => Date.now(),
      secretBox: new SecretBox(keys),
      config: { dashboard: testConfig().dashboard, encryptionKeys: keys },
      serverKeys: new ServerKeys(keys),
    };
  }

  it('findUserByEmail: a user created under the old key is found once a new key is first, and not under a stranger key', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const created = await createUser(deps([k1]), {
      email: 'Rotation.Owner@shop.example.com',
      password: 'a long enough password 1',
    });

    const rotated = deps([k2, k1]);
    const found = await findUserByEmail(rotated, 'rotation.owner@shop.example.com');
    assert.equal(found?.id, created.id);
    assert.equal(emailOf(rotated, found), 'rotation.owner@shop.example.com');
    assert.equal(await verifyPassword('a long enough password 1', found.password_hash), true);

    // A user created after the new key came first is found too; a key that never sealed anything finds no one.
    const later = await createUser(rotated, { email: 'later@shop.example.com', password: 'a long enough password 2' });
    assert.equal((await findUserByEmail(deps([k2, k1]), 'later@shop.example.com'))?.id, later.id);
    assert.equal(await findUserByEmail(deps([key('k3')]), 'rotation.owner@shop.example.com'), null);
  });

  it('createUser: an email taken under the old key is refused under the new one', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    await createUser(deps([k1]), { email: 'taken@shop.example.com', password: 'a long enough password 3' });
    await assert.rejects(
      createUser(deps([k2, k1]), { email: 'taken@shop.example.com', password: 'a long enough password 4' }),
      (err: Error & { code?: string }) => err.code === 'invalid_state',
    );
  });
});
