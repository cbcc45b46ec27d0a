import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from '@paygate/webhook-verifier';
import { decodeUtf8, decodeUtf8Portable } from '../../webhook-verifier/src/crypto.js';
import { NOW, clock, newSecret, signedHeaders } from './helpers.js';

const secret = newSecret();
const wh = new Webhook(secret, { now: clock });

const bodyAndChange = fc.uint8Array({ minLength: 1, maxLength: 2048 }).chain((body) =>
  fc.record({
    body: fc.constant(body),
    index: fc.nat({ max: body.length - 1 }),
    delta: fc.integer({ min: 1, max: 255 }),
  }),
);

function changed(body: Uint8Array, index: number, delta: number): Uint8Array {
  const copy = Uint8Array.from(body);
  copy[index] = copy[index]! ^ delta;
  return copy;
}

const isNoMatch = (error: unknown) =>
  error instanceof WebhookVerificationError && error.reason === 'no_matching_signature';

describe('webhookVerifier.property', () => {
  it('any single-byte change to the body fails verify', () => {
    fc.assert(
      fc.property(bodyAndChange, ({ body, index, delta }) => {
        const headers = signedHeaders(secret, body);
        assert.throws(() => wh.verify(changed(body, index, delta), headers), isNoMatch);
      }),
      { numRuns: 500 },
    );
  });

  it('any single-byte change to the body fails verifyAsync', async () => {
    await fc.assert(
      fc.asyncProperty(bodyAndChange, async ({ body, index, delta }) => {
        const headers = signedHeaders(secret, body);
        await assert.rejects(wh.verifyAsync(changed(body, index, delta), headers), isNoMatch);
      }),
      { numRuns: 200 },
    );
  });

  it('any JSON object signed independently verifies to the same value, in both modes', async () => {
    const object = fc.dictionary(fc.string(), fc.jsonValue()).map((value) => JSON.parse(JSON.stringify(value)));
    const id = fc.stringMatching(/^msg_[A-Za-z0-9]{1,30}$/);
    const skew = fc.integer({ min: -300, max: 300 });
    await fc.assert(
      fc.asyncProperty(object, id, skew, fc.boolean(), async (value, msgId, offset, asBytes) => {
        const text = JSON.stringify(value);
        const body = asBytes ? new TextEncoder().encode(text) : text;
        const headers = signedHeaders(secret, body, { id: msgId, timestamp: NOW + offset });
        assert.deepEqual(wh.verify(body, headers), value);
        assert.deepEqual(await wh.verifyAsync(body, headers), value);
      }),
      { numRuns: 200 },
    );
  });

  it('verify and verifyAsync accept exactly the same signature headers', async () => {
    const body = '{"a":1}';
    const valid = signedHeaders(secret, body)['webhook-signature']!;
    // Replacement letters have zero low bits, so even in the last base64 position they change the decoded digest.
    const mutated = fc
      .record({ index: fc.nat({ max: valid.length - 1 }), char: fc.constantFrom(...'AQgw0=-_*\t,. '.split('')) })
      .map(({ index, char }) => valid.slice(0, index) + char + valid.slice(index + 1));
    const token = fc.oneof(
      fc.constant(valid),
      mutated,
      fc.constant(valid.replace('v1,', 'v2,')),
      fc.constant(valid.slice(0, -1)),
      fc.string({ maxLength: 50 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { minLength: 1, maxLength: 4 }), async (tokens) => {
        const headers = { ...signedHeaders(secret, body), 'webhook-signature': tokens.join(' ') };
        const settle = async (run: () => unknown) => {
          try {
            await run();
            return 'ok';
          } catch (error) {
            return error instanceof WebhookVerificationError ? error.reason : String(error);
          }
        };
        const sync = await settle(() => wh.verify(body, headers));
        assert.equal(await settle(() => wh.verifyAsync(body, headers)), sync);
        assert.equal(sync === 'ok', tokens.includes(valid), tokens.join(' | '));
      }),
      { numRuns: 500 },
    );
  });

  it('sign and verify round-trip for any id and body bytes, and the id is bound to the signature', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (msgId, otherId) => {
        fc.pre(msgId !== otherId);
        const body = '{"a":1}';
        const signature = wh.sign(msgId, NOW, body);
        assert.equal(signature, signedHeaders(secret, body, { id: msgId })['webhook-signature']);
        const headers = { 'webhook-id': otherId, 'webhook-timestamp': String(NOW), 'webhook-signature': signature };
        assert.throws(
          () => wh.verify(body, headers),
          (error: unknown) => error instanceof WebhookVerificationError,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('the Node.js UTF-8 decoding and the WHATWG decoder refuse the same bytes and decode the rest alike', () => {
    const outcome = (decode: (b: Uint8Array) => string, bytes: Uint8Array) => {
      try {
        return { text: decode(bytes) };
      } catch (err) {
        return { refused: err instanceof TypeError };
      }
    };
    const edges = [
      [0xef, 0xbb, 0xbf, 0x7b, 0x7d], // a BOM, kept
      [0xc0, 0xaf], // overlong
      [0xe0, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80], // a surrogate
      [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
      [0xe2, 0x82], // truncated
      [0xf0, 0x9d, 0x84, 0x9e], // a 4-byte character
      [0x80],
      [],
    ].map((b) => Uint8Array.from(b));
    const check = (bytes: Uint8Array) => {
      const plain = outcome(decodeUtf8Portable, bytes);
      assert.deepEqual(outcome(decodeUtf8, bytes), plain);
      // A view into a larger buffer, and a Buffer, decode alike too.
      const padded = new Uint8Array(bytes.length + 3);
      padded.set(bytes, 2);
      assert.deepEqual(outcome(decodeUtf8, padded.subarray(2, 2 + bytes.length)), plain);
      assert.deepEqual(outcome(decodeUtf8, Buffer.from(bytes)), plain);
    };
    edges.forEach(check);
    assert.equal(outcome(decodeUtf8, edges[0]!).text, '\uFEFF{}');
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), check), { numRuns: 2000 });
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => check(new TextEncoder().encode(text))),
      { numRuns: 500 },
    );
  });
});
