import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { Webhook, type WebhookEvent } from '@paygate/webhook-verifier';
import { webhookMiddleware } from '@paygate/webhook-verifier/express';
import { clock, makeEvent, newSecret, signedHeaders } from './helpers.js';

async function listen(app: Express) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('webhookVerifier.receivers.express', () => {
  const secret = newSecret();
  const event = makeEvent({ type: 'payment.succeeded', data: { status: 'succeeded', payment_state_version: 2 } });
  const body = JSON.stringify(event);
  let received: WebhookEvent[];
  let errors: Error[];
  let server: Awaited<ReturnType<typeof listen>>;

  const record: express.RequestHandler = (req, res) => {
    received.push(req.webhookEvent!);
    res.status(200).json({ received: req.webhookEvent!.id });
  };
  const captureErrors: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    errors.push(error);
    res.status(500).json({ code: 'internal_error', message: error.message });
  };

  async function start(build: (app: Express) => void) {
    const app = express();
    build(app);
    app.use(captureErrors);
    server = await listen(app);
  }

  const post = (payload: BodyInit, headers: Record<string, string>) =>
    fetch(server.url, { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...headers } });

  beforeEach(() => {
    received = [];
    errors = [];
  });
  afterEach(async () => server.close());

  it('reads the raw body from the stream, verifies it and hands the typed event to the next handler', async () => {
    await start((app) => app.post('/webhooks', webhookMiddleware(secret, { now: clock }), record));
    const response = await post(body, signedHeaders(secret, body));
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { received: event.id });
    assert.deepEqual(received, [event]);
  });

  it('answers 400 with a JSON {code, message} and skips the handler when the signature does not match', async () => {
    await start((app) => app.post('/webhooks', webhookMiddleware(secret, { now: clock }), record));
    const response = await post(body.replace('"live":true', '"live":false'), signedHeaders(secret, body));
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-type')!, /^application\/json/);
    const answer = (await response.json()) as { code: string; message: string };
    assert.equal(answer.code, 'no_matching_signature');
    assert.equal(typeof answer.message, 'string');
    assert.deepEqual(received, []);
  });

  it('answers 400 with the reason for missing headers and for a stale timestamp', async () => {
    await start((app) => app.post('/webhooks', webhookMiddleware(secret, { now: clock }), record));
    const missing = await post(body, {});
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { code: string }).code, 'missing_headers');
    const stale = await post(body, signedHeaders(secret, body, { timestamp: clock() - 301 }));
    assert.equal(stale.status, 400);
    assert.equal(((await stale.json()) as { code: string }).code, 'timestamp_too_old');
    assert.deepEqual(received, []);
  });

  it('takes a Buffer left by express.raw, and accepts a Webhook instance', async () => {
    const webhook = new Webhook(secret, { now: clock });
    await start((app) =>
      app.post('/webhooks', express.raw({ type: 'application/json' }), webhookMiddleware(webhook), record),
    );
    const response = await post(body, signedHeaders(secret, body));
    assert.equal(response.status, 200);
    assert.deepEqual(received, [event]);
  });

  it('refuses a body already parsed by express.json() with an error that explains the raw-body trap', async () => {
    await start((app) => app.post('/webhooks', express.json(), webhookMiddleware(secret, { now: clock }), record));
    const response = await post(body, signedHeaders(secret, body));
    assert.equal(response.status, 500);
    assert.deepEqual(received, []);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message, /already consumed and parsed into an object/);
    assert.match(errors[0]!.message, /raw bytes/);
    assert.match(errors[0]!.message, /express\.raw/);
  });

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    await start((app) => app.post('/webhooks', webhookMiddleware(secret, { now: clock, limit: 64 }), record));
    const declared = await post(body, signedHeaders(secret, body));
    assert.equal(declared.status, 413);
    assert.equal(((await declared.json()) as { code: string }).code, 'payload_too_large');

    const chunks = [body.slice(0, 40), body.slice(40)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await fetch(server.url, {
      method: 'POST',
      body: stream,
      headers: { 'content-type': 'application/json', ...signedHeaders(secret, body) },
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.deepEqual(received, []);
  });
});
