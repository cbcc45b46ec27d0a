import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../server/src/crypto/secretBox.js';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('webhooks.secretBox', () => {
  it('seals and opens, naming the key, never storing the plaintext', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_secret', 'whe_1');
    assert.ok(!sealed.includes('whsec_secret'));
    assert.equal(SecretBox.keyIdOf(sealed), 'k1');
    assert.equal(box.open(sealed, 'whe_1'), 'whsec_secret');
    assert.notEqual(box.seal('whsec_secret', 'whe_1'), sealed, 'a fresh nonce every time');
  });

  it('opens old ciphertexts after the key is rotated, and seals with the new key', () => {
    const old = new SecretBox([k1]).seal('personal data');
    const rotated = new SecretBox([k2, k1]);
    assert.equal(rotated.open(old), 'personal data');
    assert.equal(SecretBox.keyIdOf(rotated.seal('x')), 'k2');
    assert.throws(() => new SecretBox([k2]).open(old), /unknown key id "k1"/);
  });

  it('refuses a tampered ciphertext or one moved to another context', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_secret', 'whe_1');
    assert.throws(() => box.open(sealed, 'whe_2'));
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    assert.throws(() => box.open([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'whe_1'));
  });
});
