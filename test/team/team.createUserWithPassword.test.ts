import assert from 'node:assert/strict';
import { createHmac, hkdfSync, scryptSync } from 'node:crypto';
import { isUniqueViolation } from '../../server/src/db/failure.js';
import { createUserWithPassword, emailHash, hashPassword, verifyPassword } from '../../server/src/team/newUser.js';
import { describeEachDatabase } from '../helpers/db.js';
import { rejectsWith } from './rejects.js';
import { CHEAP_COST, PASSWORD, teamWorld, uniqueEmail, type TeamWorld } from './teamFixtures.js';

describeEachDatabase('team.createUserWithPassword', (get) => {
  let w: TeamWorld;

  before(async () => {
    w = await teamWorld(get());
  });
  after(() => w.close());

  it('createUserWithPassword: seals the email, indexes it by the keyed hash, and refuses the same email twice', async () => {
    const email = uniqueEmail('Mixed');
    const { id } = await createUserWithPassword(w.runtime, { email, password: PASSWORD }, { cost: CHEAP_COST });
    assert.match(id, /^usr_[0-9A-Za-z]{16}$/);
    const row = await w.runtime.db.knex('users').where({ id }).first();
    // The auth helper's derivation (users/serverKeys.ts), recomputed: HKDF-SHA256 of the first encryption key.
    const key = Buffer.from(
      hkdfSync('sha256', w.runtime.config.encryptionKeys[0]!.key, Buffer.alloc(0), 'paygate email hash', 32),
    );
    assert.equal(row.email_hash, createHmac('sha256', key).update(email.toLowerCase()).digest('hex'));
    assert.equal(row.email_hash, emailHash(w.runtime, ` ${email.toUpperCase()} `));
    assert.equal(w.runtime.secretBox.open(row.email_sealed, `users.email_sealed:${id}`), email.toLowerCase());
    assert.equal(JSON.stringify(row).toLowerCase().includes(email.toLowerCase()), false);

    await assert.rejects(
      createUserWithPassword(w.runtime, { email: email.toUpperCase(), password: PASSWORD }, { cost: CHEAP_COST }),
      (err) => isUniqueViolation(err),
    );
  });

  it('createUserWithPassword: a password shorter than 12 or longer than 256 characters is params_validation', async () => {
    await rejectsWith(
      createUserWithPassword(w.runtime, { email: uniqueEmail(), password: 'short' }, { cost: CHEAP_COST }),
      'params_validation',
      400,
    );
    await rejectsWith(
      createUserWithPassword(w.runtime, { email: uniqueEmail(), password: 'x'.repeat(257) }, { cost: CHEAP_COST }),
      'params_validation',
      400,
    );
  });
});

// Storage-free, and costly (128 MiB, a few hundred milliseconds per hash): once, not per database.
describe('team.createUserWithPassword (password hash)', () => {
  it('createUserWithPassword: hashes with scrypt N=2^17, r=8, p=1 by default, in the documented encoding', async () => {
    const encoded = await hashPassword(PASSWORD);
    const [name, cost, r, p, salt, key] = encoded.split('$');
    assert.deepEqual([name, cost, r, p], ['scrypt', '17', '8', '1']);
    assert.equal(Buffer.from(salt!, 'base64url').length, 16);
    // Recomputed independently: the hash is scrypt of the password under the stored salt.
    const expected = scryptSync(PASSWORD, Buffer.from(salt!, 'base64url'), 32, {
      N: 2 ** 17,
      r: 8,
      p: 1,
      maxmem: 256 * 1024 * 1024,
    });
    assert.equal(key, expected.toString('base64url'));
    const cheap = await hashPassword(PASSWORD, CHEAP_COST);
    assert.match(cheap, /^scrypt\$10\$8\$1\$/, 'the cost is injectable and recorded in the hash');
    assert.equal(await verifyPassword(PASSWORD, cheap), true);
    assert.equal(await verifyPassword(PASSWORD.toUpperCase(), cheap), false);
    assert.equal(await verifyPassword(PASSWORD, 'scrypt$x$8$1$abc$def'), false, 'a malformed hash matches nothing');
  });
});
