import assert from 'node:assert/strict';
import type { WebhookEvent } from '@paygate/webhook-verifier';
import { createWebhookHandler } from '@paygate/webhook-verifier/fetch';
import { clock, makeEvent, newSecret, signedHeaders } from './helpers.js';

describe('webhookVerifier.receivers.fetch', () => {
  const secret = newSecret();
  const event = makeEvent({ type: 'payment.processing', data: { status: 'processing', payment_state_version: 1 } });
  const body = JSON.stringify(event);
  const request = (payload: string, headers: Record<string, string>) =>
    new Request('https://merchant.example/api/webhooks', {
      method: 'POST',
      body: payload,
      headers: { 'content-type': 'application/json', ...headers },
    });

  it('passes the verified event to the callback and returns its Response', async () => {
    const seen: WebhookEvent[] = [];
    const handle = createWebhookHandler(
      secret,
      (received) => {
        seen.push(received);
        return Response.json({ ok: received.id }, { status: 202 });
      },
      { now: clock },
    );
    const response = await handle(request(body, signedHeaders(secret, body)));
    assert.equal(response.status, 202);
    assert.deepEqual(await response.json(), { ok: event.id });
    assert.deepEqual(seen, [event]);
  });

  it('answers 204 when the callback returns nothing', async () => {
    let calls = 0;
    const handle = createWebhookHandler(secret, async () => void calls++, { now: clock });
    const response = await handle(request(body, signedHeaders(secret, body)));
    assert.equal(response.status, 204);
    assert.equal(calls, 1);
  });

  it('answers 400 {code, message} without calling back when verification fails', async () => {
    let calls = 0;
    const handle = createWebhookHandler(secret, () => void calls++, { now: clock });
    const tampered = await handle(request(body.replace('processing', 'succeeded'), signedHeaders(secret, body)));
    assert.equal(tampered.status, 400);
    assert.match(tampered.headers.get('content-type')!, /^application\/json/);
    const answer = (await tampered.json()) as { code: string; message: string };
    assert.equal(answer.code, 'no_matching_signature');
    assert.equal(typeof answer.message, 'string');

    const future = await handle(request(body, signedHeaders(secret, body, { timestamp: clock() + 301 })));
    assert.equal(future.status, 400);
    assert.equal(((await future.json()) as { code: string }).code, 'timestamp_too_new');
    assert.equal(calls, 0);
  });

  it('answers 413 over the limit and lets callback errors propagate so the gateway retries', async () => {
    const small = createWebhookHandler(secret, () => undefined, { now: clock, limit: 16 });
    const tooLarge = await small(request(body, signedHeaders(secret, body)));
    assert.equal(tooLarge.status, 413);
    assert.equal(((await tooLarge.json()) as { code: string }).code, 'payload_too_large');

    const failing = createWebhookHandler(
      secret,
      () => {
        throw new Error('database down');
      },
      { now: clock },
    );
    await assert.rejects(failing(request(body, signedHeaders(secret, body))), /database down/);
  });
});
