import assert from 'node:assert/strict';
import { checkNewPassword, hashPassword, verifyNothing, verifyPassword } from '../../server/src/users/passwords.js';

describe('dashboard.passwords.hash', () => {
  it('hashPassword: scrypt with its parameters in the encoding, a 16-byte salt and a 32-byte key', async () => {
    const encoded = await hashPassword('correct horse battery staple', 10);
    const m = /^scrypt\$10\$8\$1\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(encoded);
    assert.ok(m, encoded);
    assert.equal(Buffer.from(m[1]!, 'base64url').length, 16);
    assert.equal(Buffer.from(m[2]!, 'base64url').length, 32);
    assert.notEqual(await hashPassword('correct horse battery staple', 10), encoded, 'a new salt each time');
  });

  it('verifyPassword: true for the password only; a hash of another cost still verifies; malformed is false', async () => {
    const cheap = await hashPassword('correct horse battery staple', 10);
    const dearer = await hashPassword('correct horse battery staple', 12);
    assert.equal(await verifyPassword('correct horse battery staple', cheap), true);
    assert.equal(await verifyPassword('correct horse battery staple', dearer), true);
    assert.equal(await verifyPassword('correct horse battery stapl', cheap), false);
    assert.equal(await verifyPassword('correct horse battery staple', 'scrypt$10$8$1$AAAA$AAAA'), false);
    assert.equal(await verifyPassword('correct horse battery staple', 'bcrypt$whatever'), false);
    assert.equal(await verifyNothing('correct horse battery staple', 10), false);
  });

  it('the production cost (N=2^17, 128 MiB) works within the raised memory limit', async () => {
    const encoded = await hashPassword('correct horse battery staple', 17);
    assert.match(encoded, /^scrypt\$17\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse battery staple', encoded), true);
  });

  it('checkNewPassword: 12 to 256 characters, else 400 params_validation', () => {
    assert.doesNotThrow(() => checkNewPassword('x'.repeat(12)));
    assert.doesNotThrow(() => checkNewPassword('x'.repeat(256)));
    for (const bad of ['x'.repeat(11), 'x'.repeat(257), '']) {
      assert.throws(() => checkNewPassword(bad), { code: 'params_validation' });
    }
  });
});
