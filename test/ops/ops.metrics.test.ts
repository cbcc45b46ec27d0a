/** GET /metrics: the Prometheus series of requests, payments, webhooks, jobs and chain RPC, and who may read them. */
import assert from 'node:assert/strict';
import { Gauge } from 'prom-client';
import { createApp, createRuntime, observeRpc, startServer, type Runtime } from '@paygate/server';
import { queueDepth } from '../../server/src/db/queries/queueDepth.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { testConfig } from '../helpers/config.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { closedPort, jsonRpcCall, startJsonRpcServer, type JsonRpcServer } from '../helpers/jsonRpc.js';
import { captureLogs } from '../helpers/logs.js';
import { expectContractResponse } from '../helpers/contractResponses.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';
import { expectError } from '../merchant/harness.js';

/** The value of one sample, found by name and exact labels; undefined when the series has no such sample. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (
      Object.keys(labels).length === Object.keys(found).length &&
      Object.entries(labels).every(([k, v]) => found[k] === v)
    )
      return Number(m[3]);
  }
  return undefined;
}

describe('ops.metrics', () => {
  let runtime: Runtime;
  let clock: TestClock;
  let server: Listening;
  let receiver: Receiver;
  let account: MerchantAccount;
  let rpc: JsonRpcServer;

  before(async () => {
    clock = testClock();
    runtime = await testRuntime({ clock });
    runtime.webhookOptions.attemptTimeoutMs = 500;
    server = await listen(createApp({ runtime, validateResponses: true }));
    receiver = await startReceiver();
    rpc = await startJsonRpcServer();
    account = await createMerchantAccount(runtime);
    await createEndpoint(runtime, account.merchantId, 'test', { url: `${receiver.url}/hooks` });
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await rpc.close();
    await runtime.close();
  });

  const merchant = { 'Api-Key': '', 'Merchant-Id': '', 'Content-Type': 'application/json' };
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { ...merchant, 'Api-Key': account.testKey, 'Merchant-Id': account.merchantId },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** A scrape, checked against the ops contract: status, media type, `Cache-Control` and the exposition format. */
  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    return (await expectContractResponse('ops', '/metrics', res)) as string;
  };

  it('counts HTTP requests by method, route template and status', async () => {
    const created = await call('POST', '/v1/merchant/payment', {
      amount: { unit: 'iso4217/USD', value: '500' },
      referenceId: 'metrics-1',
    });
    assert.equal(created.status, 201);
    const { paymentId } = (await created.json()) as { paymentId: string };
    assert.equal((await call('GET', `/v1/merchant/payment/${paymentId}/status`)).status, 200);
    assert.equal((await call('GET', '/v1/merchant/payment/pay_000000000000000000000000/status')).status, 404);
    await fetch(`${server.url}/no/such/path/${paymentId}`);

    const text = await scrape();
    const count = (route: string, status: string, method = 'GET') =>
      sample(text, 'http_request_duration_seconds_count', { method, route, status });
    assert.equal(count('/v1/merchant/payment', '201', 'POST'), 1);
    assert.equal(count('/v1/merchant/payment/{id}/status', '200'), 1);
    assert.equal(count('/v1/merchant/payment/{id}/status', '404'), 1);
    assert.equal(count('unmatched', '404'), 1, 'unknown paths share one series');
    assert.ok(
      sample(text, 'http_request_duration_seconds_bucket', {
        method: 'POST',
        route: '/v1/merchant/payment',
        status: '201',
        le: '+Inf',
      }) === 1,
    );
  });

  it('counts committed payment transitions, and webhook attempts by outcome with delivery latency', async () => {
    const created = await call('POST', '/v1/merchant/payment', {
      amount: { unit: 'iso4217/USD', value: '700' },
      referenceId: 'metrics-2',
    });
    const { paymentId } = (await created.json()) as { paymentId: string };
    for (const to of ['processing', 'succeeded'])
      assert.equal((await call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, { to })).status, 200);
    // A refused transition is not counted.
    assert.equal((await call('POST', `/v1/merchant/payment/${paymentId}/cancel`, {})).status, 409);

    clock.advance(1500);
    await runtime.jobs.drain();
    receiver.respond = (_req, res) => res.writeHead(500).end('down');
    await call('POST', '/v1/merchant/payment', { amount: { unit: 'iso4217/USD', value: '900' }, referenceId: 'm-3' });
    await runtime.jobs.drain();
    receiver.respond = (_req, res) => res.writeHead(200).end('ok');

    const text = await scrape();
    const transitions = (from: string, to: string) =>
      sample(text, 'paygate_payment_transitions_total', { from, to, mode: 'test' });
    assert.equal(transitions('none', 'requires_action'), 3);
    assert.equal(transitions('requires_action', 'processing'), 1);
    assert.equal(transitions('processing', 'succeeded'), 1);
    assert.equal(transitions('succeeded', 'cancelled'), undefined);

    // Delivered: the first test's payment.created, then created, processing, succeeded, settled of the second
    // payment; the third payment's payment.created failed.
    const delivered = sample(text, 'paygate_webhook_attempts_total', { outcome: 'delivered' })!;
    assert.equal(delivered, 5);
    assert.equal(sample(text, 'paygate_webhook_attempts_total', { outcome: 'failed' }), 1);
    assert.equal(sample(text, 'paygate_webhook_attempt_duration_seconds_count', { outcome: 'delivered' }), delivered);
    assert.equal(sample(text, 'paygate_webhook_delivery_latency_seconds_count'), delivered);
    // The clock moved 1.5 s between four of the events and their delivery; the settlement came after it.
    assert.ok(sample(text, 'paygate_webhook_delivery_latency_seconds_sum')! >= 1.5 * 4);
  });

  it('times job runs by task and reports the queue depth by state on each scrape', async () => {
    const text = await scrape();
    assert.equal(
      sample(text, 'paygate_job_run_duration_seconds_count', { task: 'webhooks.deliver', outcome: 'completed' }),
      6,
    );
    assert.equal(
      sample(text, 'paygate_job_run_duration_seconds_count', {
        task: 'payments.settleTestPayment',
        outcome: 'completed',
      }),
      1,
    );
    // The failed attempt's retry waits 5 s on the clock.
    assert.equal(sample(text, 'paygate_job_queue_depth', { state: 'scheduled' }), 1);
    assert.equal(sample(text, 'paygate_job_queue_depth', { state: 'ready' }), 0);
    clock.advance(5000);
    assert.equal(sample(await scrape(), 'paygate_job_queue_depth', { state: 'ready' }), 1);
    await runtime.jobs.drain();
    assert.equal(sample(await scrape(), 'paygate_job_queue_depth', { state: 'ready' }), 0);
  });

  it('times chain RPC calls by chain and method, and counts the failed ones', async () => {
    const chain = 'eip155:31337';
    const result = await observeRpc(runtime.observer, chain, 'eth_chainId', () => jsonRpcCall(rpc.url, 'eth_chainId'));
    assert.equal(result, '0x7a69');
    await assert.rejects(
      observeRpc(runtime.observer, chain, 'eth_bogus', () => jsonRpcCall(rpc.url, 'eth_bogus')),
      /Method not found/,
    );
    const down = `http://127.0.0.1:${await closedPort()}`;
    await assert.rejects(observeRpc(runtime.observer, chain, 'eth_chainId', () => jsonRpcCall(down, 'eth_chainId')));
    assert.deepEqual(rpc.calls, ['eth_chainId', 'eth_bogus']);

    const text = await scrape();
    assert.equal(sample(text, 'paygate_chain_rpc_duration_seconds_count', { chain, method: 'eth_chainId' }), 2);
    assert.equal(sample(text, 'paygate_chain_rpc_errors_total', { chain, method: 'eth_chainId' }), 1);
    assert.equal(sample(text, 'paygate_chain_rpc_errors_total', { chain, method: 'eth_bogus' }), 1);
  });

  it('keeps each runtime’s series apart', async () => {
    const other = await testRuntime();
    try {
      const text = await other.metrics.registry.metrics();
      assert.equal(
        sample(text, 'paygate_chain_rpc_errors_total', { chain: 'eip155:31337', method: 'eth_bogus' }),
        undefined,
      );
      assert.equal(sample(text, 'paygate_job_queue_depth', { state: 'ready' }), 0);
    } finally {
      await other.close();
    }
  });
});

describe('ops.metrics.queueDepth [postgres]', () => {
  let test: TestDatabase;
  before(async () => {
    test = await createTestDatabase('postgres');
  });
  after(() => test.drop());

  it('reads graphile-worker’s queue', async () => {
    const runtime = await testRuntime({ db: test.db });
    try {
      assert.deepEqual(await queueDepth(test.db, Date.now()), { ready: 0, running: 0, scheduled: 0, failed: 0 });
      await runtime.jobs.add(test.db.knex, 'payments.expireOverdue', {});
      await runtime.jobs.add(test.db.knex, 'payments.expireOverdue', {}, { runAt: Date.now() + 3_600_000 });
      assert.deepEqual(await queueDepth(test.db, Date.now()), { ready: 1, running: 0, scheduled: 1, failed: 0 });
      const text = await runtime.metrics.registry.metrics();
      assert.equal(sample(text, 'paygate_job_queue_depth', { state: 'ready' }), 1);
    } finally {
      await runtime.close();
    }
  });
});

describe('ops.metrics.access', () => {
  it('requires the bearer token when METRICS_TOKEN is set', async () => {
    const runtime = await testRuntime({ config: { METRICS_TOKEN: 'scrape-secret-1' } });
    const server = await listen(createApp({ runtime, validateResponses: true }));
    try {
      const none = await fetch(`${server.url}/metrics`);
      assert.equal(none.headers.get('WWW-Authenticate'), 'Bearer realm="metrics"');
      await expectError(none.clone(), 401, 'unauthorized');
      await expectContractResponse('ops', '/metrics', none);
      const wrong = await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer scrape-secret-2' } });
      await expectError(wrong, 401, 'unauthorized');
      const right = await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer scrape-secret-1' } });
      assert.equal(right.status, 200);
      assert.match(String(await expectContractResponse('ops', '/metrics', right)), /^# HELP /m);
    } finally {
      await server.close();
      await runtime.close();
    }
  });

  it('serves /metrics on METRICS_PORT only, with process metrics, when a port is given', async () => {
    const { logger } = captureLogs('info');
    const running = await startServer(testConfig({ METRICS_PORT: '0' }), {
      handleSignals: false,
      runtime: { logger },
    });
    try {
      assert.ok(running.metricsUrl);
      const res = await fetch(running.metricsUrl);
      assert.equal(res.status, 200);
      const text = (await expectContractResponse('ops', '/metrics', res)) as string;
      assert.ok(sample(text, 'process_cpu_user_seconds_total') !== undefined, 'process metrics in the server');
      assert.match(text, /^# TYPE http_request_duration_seconds histogram$/m);
      await expectContractResponse('ops', '/metrics', await fetch(`${running.url}/metrics`));
      await expectError(await fetch(`${running.url}/metrics`), 404, 'invalid_params');
      await expectError(await fetch(new URL('/healthz', running.metricsUrl)), 404, 'invalid_params');
    } finally {
      await running.close();
    }
  });

  it('outside development, does not serve /metrics on the API port without a token', async () => {
    const production = {
      PAYGATE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://pay.example.com',
      PAYGATE_CHAINS: '/etc/paygate/chains.json',
    };
    for (const [extra, status] of [
      [{}, 404],
      [{ METRICS_TOKEN: 'tok-1' }, 401],
    ] as const) {
      const runtime = await createRuntime({
        config: testConfig({ ...production, ...extra }),
        logger: captureLogs('info').logger,
      });
      const server = await listen(createApp({ runtime, validateResponses: true }));
      try {
        const res = await fetch(`${server.url}/metrics`);
        assert.equal(res.status, status);
        await expectContractResponse('ops', '/metrics', res);
      } finally {
        await server.close();
        await runtime.close();
      }
    }
  });

  it('answers 500 internal_error, in the contract\u2019s shape, when a collector fails', async () => {
    const { logger, lines } = captureLogs('info');
    const runtime = await createRuntime({ config: testConfig(), logger });
    const server = await listen(createApp({ runtime, validateResponses: true }));
    try {
      // A collector that throws stands for a bug in one series: the scrape fails whole, and says so generically.
      new Gauge({
        name: 'test_broken_series',
        help: 'A series whose collection fails.',
        registers: [runtime.metrics.registry],
        collect() {
          throw new Error('collector failed at 10.0.0.7');
        },
      });
      const res = await fetch(`${server.url}/metrics`);
      const body = (await expectContractResponse('ops', '/metrics', res)) as { code: string; message: string };
      assert.equal(res.status, 500);
      assert.equal(body.code, 'internal_error');
      assert.doesNotMatch(body.message, /10\.0\.0\.7/, 'no internal detail in the answer');
      assert.ok(
        lines().some((l) => /collector failed/.test(JSON.stringify(l))),
        'the error is logged in full',
      );
    } finally {
      await server.close();
      await runtime.close();
    }
  });
});
