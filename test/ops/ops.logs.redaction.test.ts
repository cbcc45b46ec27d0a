/**
 * A whole payment flow with every log line captured: keys, secrets, signatures, bearer tokens and buyer data sent to
 * the server must appear in none of them, while each request leaves its one line with method, route template,
 * status, latency and request id.
 */
import assert from 'node:assert/strict';
import { createApp, createRuntime, type Runtime } from '@paygate/server';
import { createKey } from '../../server/src/accounts/index.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { testConfig } from '../helpers/config.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs, type CapturedLogs } from '../helpers/logs.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock } from '../helpers/runtime.js';
import { unredactedChild } from '../../server/src/observability/logger.js';

const FULL_NAME = 'Ada Lovelace-Byron 7f3e';
const DOB = '1815-12-10';
const EMAIL = 'ada.7f3e@example.org';
const BEARER = 'bearer-token-4c1d9a7e0b2f';
// What a merchant says about its buyer at creation (issue 35 §1), carried by every event of the payment.
const BUYER_EMAIL = 'grace.9b2c@example.org';
const BUYER_NAME = 'Grace Hopper 9b2c';
const WRONG_KEY = 'sk_test_WrongWrongWrongWrongWrongWron';

interface RequestLine {
  msg: string;
  reqId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
  ip: string;
}

describe('ops.logs.redaction', () => {
  let logs: CapturedLogs;
  let runtime: Runtime;
  let server: Listening;
  let receiver: Receiver;
  let account: MerchantAccount;
  let walletKey: string;
  let webhookSecret: string;

  before(async () => {
    logs = captureLogs('trace');
    runtime = await createRuntime({
      config: testConfig({ LOG_LEVEL: 'trace' }),
      logger: logs.logger,
      now: testClock().now,
    });
    receiver = await startReceiver();
    server = await listen(createApp({ runtime, validateResponses: true }));
    account = await createMerchantAccount(runtime);
    walletKey = (await createKey(runtime, { kind: 'wallet', mode: 'test' })).secret;
    webhookSecret = (await createEndpoint(runtime, account.merchantId, 'test', { url: `${receiver.url}/hooks` }))
      .secret;
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await runtime.close();
  });

  const merchant = (headers: Record<string, string> = {}) => ({
    'Api-Key': account.testKey,
    'Merchant-Id': account.merchantId,
    'Content-Type': 'application/json',
    ...headers,
  });
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const requestLines = () => logs.lines().filter((l) => l.msg === 'request') as unknown as RequestLine[];

  it('runs a payment flow, with webhooks, replays, refusals and personal data, and logs no secret', async () => {
    const order = {
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-logs-1',
      buyer: { email: BUYER_EMAIL, name: BUYER_NAME },
    };
    const created = await call(
      'POST',
      '/v1/merchant/payment',
      merchant({ 'Idempotency-Key': 'idem-logs-1', 'X-Request-Id': 'req-flow-create' }),
      order,
    );
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('X-Request-Id'), 'req-flow-create');
    const { paymentId } = (await created.json()) as { paymentId: string };

    const replay = await call('POST', '/v1/merchant/payment', merchant({ 'Idempotency-Key': 'idem-logs-1' }), order);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('Idempotent-Replayed'), 'true');

    for (const to of ['processing', 'succeeded']) {
      const res = await call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, merchant(), { to });
      assert.equal(res.status, 200);
    }
    assert.equal((await call('GET', `/v1/merchant/payment/${paymentId}`, merchant())).status, 200);
    // created, processing, succeeded, and the automatic test settlement
    await runtime.jobs.drain();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 4);

    const wrongKey = await call('GET', `/v1/merchant/payment/${paymentId}`, merchant({ 'Api-Key': WRONG_KEY }));
    assert.equal(wrongKey.status, 401);
    const bearer = await call('GET', `/v1/merchant/payments`, merchant({ Authorization: `Bearer ${BEARER}` }));
    assert.equal(bearer.status, 200);
    await call('GET', '/v1/dashboard/webhook-endpoint', merchant({ Authorization: `Bearer ${BEARER}` }));
    await call('GET', '/metrics', { Authorization: `Bearer ${BEARER}` });

    // Buyer data in bodies the server refuses, in a gateway confirm, and in a body that is not even JSON.
    const personal = { fullName: FULL_NAME, dob: DOB, email: EMAIL };
    const refused = await call('POST', '/v1/merchant/payment', merchant(), { ...order, collectedData: personal });
    assert.equal(refused.status, 400);
    await call(
      'POST',
      `/v1/gateway/payment/${paymentId}/confirm`,
      { 'Api-Key': walletKey, 'Content-Type': 'application/json', Authorization: `Bearer ${BEARER}` },
      { optionId: 'opt', results: ['0xabc'], collectedData: personal },
    );
    const broken = await call('POST', '/v1/merchant/payment', merchant(), `{"fullName":"${FULL_NAME}","dob":`);
    assert.equal(broken.status, 400);

    const text = logs.text();
    const signatures = receiver.received.flatMap((r) =>
      String(r.headers['webhook-signature'])
        .split(' ')
        .flatMap((entry) => [entry, entry.split(',')[1]!]),
    );
    const secrets = {
      'merchant test key': account.testKey,
      'merchant live key': account.liveKey,
      'wallet key': walletKey,
      'wrong key': WRONG_KEY,
      'webhook secret': webhookSecret,
      'webhook secret material': webhookSecret.slice('whsec_'.length),
      'bearer token': BEARER,
      'full name': FULL_NAME,
      'date of birth': DOB,
      email: EMAIL,
      "the merchant's buyer email": BUYER_EMAIL,
      "the merchant's buyer name": BUYER_NAME,
    };
    for (const [what, value] of Object.entries(secrets)) {
      assert.ok(!text.includes(value), `the ${what} appears in the logs`);
    }
    for (const signature of signatures) assert.ok(!text.includes(signature), 'a webhook signature appears in the logs');
    assert.ok(logs.lines().length > 20, 'the flow was logged');
  });

  it('writes one line per request: method, route template, status, latency and request id', () => {
    const lines = requestLines();
    const create = lines.find((l) => l.reqId === 'req-flow-create');
    assert.ok(create, 'the create request has its line, under the caller’s request id');
    assert.equal(create.method, 'POST');
    assert.equal(create.route, '/v1/merchant/payment');
    assert.equal(create.status, 201);
    assert.equal(typeof create.ms, 'number');
    assert.equal(lines.filter((l) => l.reqId === 'req-flow-create').length, 1, 'exactly one line');

    const detail = lines.find(
      (l) => l.method === 'GET' && l.status === 200 && l.path.startsWith('/v1/merchant/payment/'),
    );
    assert.equal(detail?.route, '/v1/merchant/payment/{id}', 'the template, not the id');
    const simulate = lines.find((l) => l.path.endsWith('/simulate'));
    assert.equal(simulate?.route, '/v1/merchant/test/payment/{id}/simulate');
    // Refused before routing, still named by its operation.
    const unauthenticated = lines.find((l) => l.status === 401);
    assert.equal(unauthenticated?.route, '/v1/merchant/payment/{id}');
    for (const line of lines) {
      assert.match(line.reqId, /\S/);
      assert.ok(line.ms >= 0);
    }
  });

  it('writes each request line without the redaction walk exactly as the redacting logger would', () => {
    const requestLines = logs.lines().filter((l) => l.msg === 'request');
    assert.ok(requestLines.length > 5, String(requestLines.length));
    const written = (log: (l: typeof logs.logger) => void) => {
      const captured = captureLogs('info');
      log(captured.logger);
      return captured.lines().map(({ time: _time, ...rest }) => rest);
    };
    const fields = requestLines.map(({ time: _t, level: _l, pid: _p, hostname: _h, msg: _m, ...rest }) => rest);
    const plain = written((logger) => fields.forEach((f) => logger.info(f, 'request')));
    const fast = written((logger) => fields.forEach((f) => unredactedChild(logger).info(f, 'request')));
    assert.deepEqual(fast, plain);
    assert.ok(
      fields.some((f) => f.merchant),
      JSON.stringify(fields.slice(0, 3)),
    );
  });

  it('writes one line per job run with its task and duration', () => {
    const jobs = logs.lines().filter((l) => l.msg === 'job completed');
    assert.ok(jobs.some((l) => l.task === 'webhooks.deliver'));
    assert.ok(jobs.some((l) => l.task === 'payments.settleTestPayment'));
    for (const line of jobs) assert.equal(typeof line.ms, 'number');
  });

  it('echoes a sane X-Request-Id and replaces any other with a UUID', async () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const none = await fetch(`${server.url}/healthz`);
    assert.match(none.headers.get('X-Request-Id')!, uuid);
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': 'lb-abc/123:xyz' } });
    assert.equal(kept.headers.get('X-Request-Id'), 'lb-abc/123:xyz');
    for (const bad of ['x'.repeat(201), 'line\tbreak', 'caf\u00e9']) {
      const res = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': bad } });
      assert.match(res.headers.get('X-Request-Id')!, uuid, JSON.stringify(bad));
    }
  });

  it('censors secret fields and headers wherever a log call puts them', () => {
    const { logger, text } = captureLogs('info');
    logger.info(
      {
        merchantApiKey: 'sk_test_leak1',
        headers: { 'api-key': 'sk_test_leak2', authorization: 'Bearer leak3', 'webhook-signature': 'v1,leak4' },
        err: { body: `{"fullName":"leak5"}`, config: { headers: { cookie: 'leak6' } } },
        endpoint: { secret: 'whsec_leak7' },
        payment: { collectedData: { fullName: 'leak8' } },
      },
      'careless',
    );
    assert.doesNotMatch(text(), /leak\d/);
    assert.match(text(), /\[redacted\]/);
  });
});
