import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import { clock, signedHeaders } from './helpers.js';

const base64 = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = '{"ok":true}';

describe('webhookVerifier.secret', () => {
  const invalid: [string, unknown][] = [
    ['empty string', ''],
    ['blank string', '   '],
    ['prefix only', 'whsec_'],
    ['non-base64 characters', 'whsec_not base64!'],
    ['url-safe alphabet', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa-_'],
    ['impossible length', 'whsec_MfKQ9'],
    ['misplaced padding', 'whsec_Mf==KQ9r'],
    ['a prefix in the wrong case', 'WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a number', 42],
    ['undefined', undefined],
    ['an empty array', []],
    ['an array with one bad secret', [`whsec_${base64}`, 'whsec_!']],
  ];
  for (const [name, secret] of invalid) {
    it(`throws a TypeError at construction for ${name}`, () => {
      assert.throws(() => new Webhook(secret as string), TypeError);
    });
  }

  it('rejects a negative or non-finite tolerance', () => {
    assert.throws(() => new Webhook(base64, { toleranceSeconds: -1 }), TypeError);
    assert.throws(() => new Webhook(base64, { toleranceSeconds: Number.NaN }), TypeError);
  });

  const equivalent: [string, string][] = [
    ['with the whsec_ prefix', `whsec_${base64}`],
    ['raw base64', base64],
    ['surrounded by whitespace (e.g. read from a file)', `  whsec_${base64}\n`],
  ];
  for (const [name, secret] of equivalent) {
    it(`accepts the secret ${name}`, () => {
      assert.deepEqual(new Webhook(secret, { now: clock }).verify(body, signedHeaders(base64, body)), { ok: true });
    });
  }

  it('accepts unpadded base64 and decodes it like the padded form', () => {
    const padded = 'whsec_AAECAwQ=';
    const unpadded = 'whsec_AAECAwQ';
    assert.equal(new Webhook(unpadded).sign('msg_1', 1, body), new Webhook(padded).sign('msg_1', 1, body));
    assert.equal(
      new Webhook(unpadded).sign('msg_1', 1, body),
      signedHeaders(padded, body, { timestamp: 1 })['webhook-signature'],
    );
  });

  it('accepts a one-byte key', () => {
    assert.ok(new Webhook('whsec_AQ==', { now: clock }).verify(body, signedHeaders('whsec_AQ==', body)));
  });
});
