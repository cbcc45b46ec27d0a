import assert from 'node:assert/strict';
import { createHash, createHmac, scryptSync } from 'node:crypto';
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
    const key = createHash('sha256')
      .update(Buffer.concat([Buffer.from('paygate email index'), w.runtime.config.encryptionKeys[0]!.key]))
      .digest();
    assert.equal(row.email_hash, createHmac('sha256', key).update(email.toLowerCase()).digest('hex'));
    assert.equal(row.email_hash, emailHash(w.runtime, ` ${email.toUpperCase()} `));
    assert.equal(w.runtime.secretBox.open(row.email_sealed, `users.email:${id}`), email);
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
    assert.equal(Buffer.from(salt!, 'base64').length, 16);
    // Recomputed independently: the hash is scrypt of the password under the stored salt.
    const expected = scryptSync(PASSWORD, Buffer.from(salt!, 'base64'), 32, {
      N: 2 ** 17,
      r: 8,
      p: 1,
      maxmem: 256 * 1024 * 1024,
    });
    assert.equal(key, expected.toString('base64'));
    const cheap = await hashPassword(PASSWORD, CHEAP_COST);
    assert.match(cheap, /^scrypt\$10\$8\$1\$/, 'the cost is injectable and recorded in the hash');
    assert.equal(await verifyPassword(cheap, PASSWORD), true);
    assert.equal(await verifyPassword(cheap, PASSWORD.toUpperCase()), false);
    assert.equal(await verifyPassword('scrypt$x$8$1$abc$def', PASSWORD), false, 'a malformed hash matches nothing');
  });
});
