import assert from 'node:assert/strict';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook, WebhookVerificationError } from '@paygate/webhook-verifier';
import { newSecret } from './helpers.js';

// standardwebhooks reads the real clock, so these deliveries are stamped with the current time.
describe('webhookVerifier.interop with the standardwebhooks package', () => {
  const secret = newSecret(32);
  const payload = JSON.stringify({
    id: 'evt_1',
    type: 'payment.succeeded',
    data: { amount: { value: '12.5', unit: 'x' } },
  });
  const id = 'msg_interop';

  function headers(signature: string, timestamp: Date) {
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
  }

  it('verifies what standardwebhooks signs, with and without the whsec_ prefix, text and bytes', async () => {
    const now = new Date();
    const theirs = new StandardWebhook(secret);
    const h = headers(theirs.sign(id, now, payload), now);
    for (const ours of [new Webhook(secret), new Webhook(secret.slice('whsec_'.length))]) {
      assert.deepEqual(ours.verify(payload, h), JSON.parse(payload));
      assert.deepEqual(ours.verify(Buffer.from(payload), h), JSON.parse(payload));
      assert.deepEqual(await ours.verifyAsync(payload, h), JSON.parse(payload));
    }
  });

  it('produces signatures standardwebhooks accepts, sync and async', async () => {
    const now = new Date();
    const ours = new Webhook(secret);
    const theirs = new StandardWebhook(secret);
    assert.deepEqual(theirs.verify(payload, headers(ours.sign(id, now, payload), now)), JSON.parse(payload));
    assert.deepEqual(theirs.verify(payload, headers(await ours.signAsync(id, now, payload), now)), JSON.parse(payload));
  });

  it('agrees with standardwebhooks on a rotation header and on a tampered body', () => {
    const now = new Date();
    const oldSecret = newSecret(32);
    const signature = `${new StandardWebhook(oldSecret).sign(id, now, payload)} ${new Webhook(secret).sign(id, now, payload)}`;
    const h = headers(signature, now);
    for (const s of [secret, oldSecret]) {
      assert.deepEqual(new Webhook(s).verify(payload, h), new StandardWebhook(s).verify(payload, h));
    }
    const tampered = payload.replace('12.5', '125');
    assert.throws(() => new StandardWebhook(secret).verify(tampered, h));
    assert.throws(() => new Webhook(secret).verify(tampered, h), WebhookVerificationError);
  });

  it('agrees with standardwebhooks in refusing another base64 spelling of the right digest', async () => {
    const now = new Date();
    const signature = new Webhook(secret).sign(id, now, payload);
    // The last character before `=` carries two unused bits; setting one spells the same 32 bytes differently, which
    // a lenient base64 decoder would accept.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = alphabet.indexOf(signature.at(-2)!);
    const respelled = `${signature.slice(0, -2)}${alphabet[last + 1]}=`;
    assert.deepEqual(
      Buffer.from(respelled.slice(3), 'base64'),
      Buffer.from(signature.slice(3), 'base64'),
      'the same digest',
    );
    const h = headers(respelled, now);
    assert.throws(() => new StandardWebhook(secret).verify(payload, h));
    assert.throws(() => new Webhook(secret).verify(payload, h), { reason: 'no_matching_signature' });
    assert.throws(() => new Webhook(secret).verify(Buffer.from(payload), h), { reason: 'no_matching_signature' });
    await assert.rejects(new Webhook(secret).verifyAsync(payload, h), { reason: 'no_matching_signature' });
    assert.deepEqual(new Webhook(secret).verify(payload, headers(signature, now)), JSON.parse(payload));
  });
});
