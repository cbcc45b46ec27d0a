import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook, WebhookVerificationError, type WebhookHeaders } from '@paygate/webhook-verifier';
import { NOW, clock, newSecret, referenceSignature, signedHeaders } from './helpers.js';

type Body = string | Uint8Array;
type Outcome = { ok: true; value: unknown } | { ok: false; reason: string };

const modes = {
  verify: (wh: Webhook, body: Body, headers: WebhookHeaders) => wh.verify(body, headers),
  verifyAsync: (wh: Webhook, body: Body, headers: WebhookHeaders) => wh.verifyAsync(body, headers),
};

async function outcome(run: () => unknown): Promise<Outcome> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, `unexpected ${String(error)}`);
    return { ok: false, reason: error.reason };
  }
}

const secret = newSecret();
const otherSecret = newSecret();
const body = '{"id":"evt_1","type":"payment.created","data":{"note":"héllo ✓"}}';
const bytes = new TextEncoder().encode(body);
const wh = new Webhook(secret, { now: clock });

interface Case {
  name: string;
  body: Body;
  headers: WebhookHeaders;
  webhook?: Webhook;
  expect: string | 'ok';
}

const cases: Case[] = [
  { name: 'valid string body', body, headers: signedHeaders(secret, body), expect: 'ok' },
  { name: 'valid Uint8Array body', body: bytes, headers: signedHeaders(secret, bytes), expect: 'ok' },
  { name: 'valid Buffer body', body: Buffer.from(body), headers: signedHeaders(secret, body), expect: 'ok' },
  {
    name: 'body signed as bytes verifies as the same text',
    body,
    headers: signedHeaders(secret, bytes),
    expect: 'ok',
  },
  {
    name: 'tampered body',
    body: body.replace('héllo', 'hello'),
    headers: signedHeaders(secret, body),
    expect: 'no_matching_signature',
  },
  {
    name: 'tampered id',
    body,
    headers: { ...signedHeaders(secret, body, { id: 'msg_1' }), 'webhook-id': 'msg_2' },
    expect: 'no_matching_signature',
  },
  {
    name: 'tampered timestamp (within tolerance)',
    body,
    headers: { ...signedHeaders(secret, body), 'webhook-timestamp': String(NOW + 1) },
    expect: 'no_matching_signature',
  },
  { name: 'wrong secret', body, headers: signedHeaders(otherSecret, body), expect: 'no_matching_signature' },
  {
    name: 'timestamp 301 s old',
    body,
    headers: signedHeaders(secret, body, { timestamp: NOW - 301 }),
    expect: 'timestamp_too_old',
  },
  {
    name: 'timestamp exactly 300 s old',
    body,
    headers: signedHeaders(secret, body, { timestamp: NOW - 300 }),
    expect: 'ok',
  },
  {
    name: 'timestamp 301 s ahead',
    body,
    headers: signedHeaders(secret, body, { timestamp: NOW + 301 }),
    expect: 'timestamp_too_new',
  },
  {
    name: 'timestamp exactly 300 s ahead',
    body,
    headers: signedHeaders(secret, body, { timestamp: NOW + 300 }),
    expect: 'ok',
  },
  {
    name: 'custom tolerance rejects 61 s',
    body,
    headers: signedHeaders(secret, body, { timestamp: NOW - 61 }),
    webhook: new Webhook(secret, { now: clock, toleranceSeconds: 60 }),
    expect: 'timestamp_too_old',
  },
  {
    name: 'rotation: old and new entries, verified with the new secret',
    body,
    headers: rotationHeaders(),
    expect: 'ok',
  },
  {
    name: 'rotation: old and new entries, verified with the old secret',
    body,
    headers: rotationHeaders(),
    webhook: new Webhook(otherSecret, { now: clock }),
    expect: 'ok',
  },
  {
    name: 'another version only (v2 with the right digest)',
    body,
    headers: {
      ...signedHeaders(secret, body),
      'webhook-signature': signedHeaders(secret, body)['webhook-signature']!.replace('v1,', 'v2,'),
    },
    expect: 'no_matching_signature',
  },
  {
    name: 'v1 among other versions and junk entries',
    body,
    headers: {
      ...signedHeaders(secret, body),
      'webhook-signature': `v2,abc v1a,xyz  garbage ${signedHeaders(secret, body)['webhook-signature']} v1,`,
    },
    expect: 'ok',
  },
  {
    name: 'empty v1 entry',
    body,
    headers: { ...signedHeaders(secret, body), 'webhook-signature': 'v1,' },
    expect: 'no_matching_signature',
  },
  {
    name: 'truncated signature',
    body,
    headers: {
      ...signedHeaders(secret, body),
      'webhook-signature': signedHeaders(secret, body)['webhook-signature']!.slice(0, 20),
    },
    expect: 'no_matching_signature',
  },
  {
    name: 'signature with a trailing character',
    body,
    headers: {
      ...signedHeaders(secret, body),
      'webhook-signature': `${signedHeaders(secret, body)['webhook-signature']}A`,
    },
    expect: 'no_matching_signature',
  },
  {
    name: 'unpadded signature is not the v1 format',
    body,
    headers: {
      ...signedHeaders(secret, body),
      'webhook-signature': signedHeaders(secret, body)['webhook-signature']!.slice(0, -1),
    },
    expect: 'no_matching_signature',
  },
  {
    name: 'missing webhook-id',
    body,
    headers: without(signedHeaders(secret, body), 'webhook-id'),
    expect: 'missing_headers',
  },
  {
    name: 'missing webhook-timestamp',
    body,
    headers: without(signedHeaders(secret, body), 'webhook-timestamp'),
    expect: 'missing_headers',
  },
  {
    name: 'missing webhook-signature',
    body,
    headers: without(signedHeaders(secret, body), 'webhook-signature'),
    expect: 'missing_headers',
  },
  {
    name: 'empty webhook-id',
    body,
    headers: { ...signedHeaders(secret, body), 'webhook-id': '' },
    expect: 'missing_headers',
  },
  { name: 'no headers at all', body, headers: {}, expect: 'missing_headers' },
  ...['hello', '1.5', '-1', ' 1700000000', '1e9', '0x10', '9999999999999999'].map((timestamp) => ({
    name: `invalid timestamp ${JSON.stringify(timestamp)}`,
    body,
    headers: { ...signedHeaders(secret, body), 'webhook-timestamp': timestamp },
    expect: 'invalid_timestamp',
  })),
  ...[
    ['not JSON', 'not json'],
    ['empty body', ''],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"evt"'],
    ['JSON null', 'null'],
  ].map(([name, payload]) => ({
    name: `valid signature over ${name}`,
    body: payload!,
    headers: signedHeaders(secret, payload!),
    expect: 'invalid_payload',
  })),
  {
    name: 'valid signature over malformed UTF-8 bytes',
    body: Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d),
    headers: signedHeaders(secret, Uint8Array.of(0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d)),
    expect: 'invalid_payload',
  },
  {
    name: 'header names in any case',
    body,
    headers: Object.fromEntries(
      Object.entries(signedHeaders(secret, body)).map(([k, v], i) => [
        i === 0 ? k.toUpperCase() : k.replace(/\b\w/g, (c) => c.toUpperCase()),
        v,
      ]),
    ),
    expect: 'ok',
  },
  { name: 'a Headers instance', body, headers: new Headers(signedHeaders(secret, body)), expect: 'ok' },
  {
    name: 'IncomingHttpHeaders with an array of signature values',
    body,
    headers: incomingHeaders(),
    expect: 'ok',
  },
];

function rotationHeaders(): Record<string, string> {
  const fresh = signedHeaders(secret, body);
  const old = signedHeaders(otherSecret, body);
  return { ...fresh, 'webhook-signature': `${old['webhook-signature']} ${fresh['webhook-signature']}` };
}

function incomingHeaders(): IncomingHttpHeaders {
  const signed = signedHeaders(secret, body);
  return {
    host: '127.0.0.1',
    'content-type': 'application/json',
    'webhook-id': signed['webhook-id'],
    'webhook-timestamp': signed['webhook-timestamp'],
    'webhook-signature': [signedHeaders(otherSecret, body)['webhook-signature']!, signed['webhook-signature']!],
  };
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}

describe('webhookVerifier.verify', () => {
  it('reproduces the published Standard Webhooks test vector', async () => {
    const vector = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      payload: '{"test": 2432232314}',
      signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    assert.equal(referenceSignature(vector.secret, vector.id, vector.timestamp, vector.payload), vector.signature);
    const vectorWebhook = new Webhook(vector.secret, { now: () => vector.timestamp });
    assert.equal(vectorWebhook.sign(vector.id, vector.timestamp, vector.payload), vector.signature);
    assert.equal(vectorWebhook.sign(vector.id, new Date(vector.timestamp * 1000), vector.payload), vector.signature);
    assert.equal(await vectorWebhook.signAsync(vector.id, vector.timestamp, vector.payload), vector.signature);
    const headers = {
      'webhook-id': vector.id,
      'webhook-timestamp': String(vector.timestamp),
      'webhook-signature': vector.signature,
    };
    assert.deepEqual(vectorWebhook.verify(vector.payload, headers), { test: 2432232314 });
    assert.deepEqual(await vectorWebhook.verifyAsync(vector.payload, headers), { test: 2432232314 });
  });

  it('signs bytes and text identically, matching an independent HMAC', async () => {
    const expected = referenceSignature(secret, 'msg_9', NOW, body);
    assert.equal(wh.sign('msg_9', NOW, body), expected);
    assert.equal(wh.sign('msg_9', NOW, bytes), expected);
    assert.equal(await wh.signAsync('msg_9', NOW, bytes), expected);
  });

  it('rejects a timestamp that is not a non-negative integer when signing', () => {
    assert.throws(() => wh.sign('msg_1', 1.5, body), TypeError);
    assert.throws(() => wh.sign('msg_1', -1, body), TypeError);
  });

  for (const [mode, run] of Object.entries(modes)) {
    describe(mode, () => {
      for (const c of cases) {
        it(`${c.name} → ${c.expect}`, async () => {
          const result = await outcome(() => run(c.webhook ?? wh, c.body, c.headers));
          if (c.expect === 'ok') {
            assert.ok(result.ok, `expected success, got ${JSON.stringify(result)}`);
            const text = typeof c.body === 'string' ? c.body : new TextDecoder().decode(c.body);
            assert.deepEqual(result.value, JSON.parse(text));
          } else {
            assert.deepEqual(result, { ok: false, reason: c.expect });
          }
        });
      }
    });
  }

  it('verifyAsync gives the same outcome as verify in every case', async () => {
    for (const c of cases) {
      const sync = await outcome(() => (c.webhook ?? wh).verify(c.body, c.headers));
      const async = await outcome(() => (c.webhook ?? wh).verifyAsync(c.body, c.headers));
      assert.deepEqual(async, sync, c.name);
    }
  });

  it('reports the error as a WebhookVerificationError with a message', () => {
    assert.throws(
      () => wh.verify(body, {}),
      (error: unknown) =>
        error instanceof WebhookVerificationError &&
        error instanceof Error &&
        error.name === 'WebhookVerificationError' &&
        /webhook-id/.test(error.message),
    );
  });

  it('accepts several secrets and signs with the first', () => {
    const both = new Webhook([secret, otherSecret], { now: clock });
    assert.ok(both.verify(body, signedHeaders(secret, body)));
    assert.ok(both.verify(body, signedHeaders(otherSecret, body)));
    assert.equal(both.sign('msg_1', NOW, body), signedHeaders(secret, body)['webhook-signature']);
    assert.throws(() => both.verify(body, signedHeaders(newSecret(), body)), WebhookVerificationError);
  });

  it('reads the clock on every call', () => {
    let now = NOW;
    const moving = new Webhook(secret, { now: () => now });
    const headers = signedHeaders(secret, body);
    assert.ok(moving.verify(body, headers));
    now = NOW + 301;
    assert.throws(() => moving.verify(body, headers), { reason: 'timestamp_too_old' });
  });

  it('uses the real clock by default', () => {
    const realTime = new Webhook(secret);
    const fresh = signedHeaders(secret, body, { timestamp: Math.floor(Date.now() / 1000) });
    assert.ok(realTime.verify(body, fresh));
    assert.throws(() => realTime.verify(body, signedHeaders(secret, body)), { reason: 'timestamp_too_old' });
  });
});
