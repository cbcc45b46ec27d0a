/**
 * SIGTERM to a real `paygate start` while a webhook delivery is in flight: the process stops accepting, lets the
 * request and the delivery in flight finish up to PAYGATE_SHUTDOWN_TIMEOUT_MS, and exits 0; a delivery cut off by
 * the deadline is recorded as a failed attempt with its retry scheduled, and a restarted process delivers it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createRuntime, loadConfig, openDatabase, type Runtime } from '@paygate/server';
import { findDelivery, listAttempts } from '../../server/src/db/queries/webhooks.js';
import { InFlightRequests } from '../../server/src/http/inflight.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { parseJson, runCli } from '../helpers/cli.js';
import { listen } from '../helpers/http.js';
import { captureLogs } from '../helpers/logs.js';
import { startPaygate, waitFor, type StartedPaygate } from '../helpers/paygate.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testRuntime } from '../helpers/runtime.js';
import { expectContractResponse } from '../helpers/contractResponses.js';
import { expectError } from '../merchant/harness.js';

interface Credentials {
  merchantId: string;
  merchantApiKey: string;
}

describe('ops.shutdown', () => {
  let dir: string;
  let env: Record<string, string>;
  let receiver: Receiver;
  let held: ServerResponse[];
  let credentials: Credentials;
  let paygate: StartedPaygate | null = null;

  /** The same database and development secrets as the child process, opened in this one. */
  const localRuntime = (now?: () => number): Promise<Runtime> =>
    createRuntime({
      config: loadConfig({ PAYGATE_ENV: 'development', DATABASE_URL: env.DATABASE_URL, PAYGATE_DATA_DIR: dir }),
      logger: captureLogs('info').logger,
      now,
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-shutdown-'));
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'paygate.sqlite')}`,
      PAYGATE_DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'info',
    };
    credentials = parseJson<Credentials>(await runCli(['admin', 'bootstrap', '--json'], env));
    receiver = await startReceiver();
    held = [];
    receiver.respond = (_req: IncomingMessage, res: ServerResponse) => void held.push(res);
    // Created before the server starts: SQLite has one writer, and this process lets go of the file first.
    const runtime = await localRuntime();
    try {
      await createEndpoint(runtime, credentials.merchantId, 'test', {
        url: `${receiver.url}/hooks`,
        eventTypes: ['payment.created'],
      });
    } finally {
      await runtime.close();
    }
  });
  afterEach(async () => {
    if (paygate && paygate.child.exitCode === null && paygate.child.signalCode === null) {
      paygate.child.kill('SIGKILL');
      await paygate.exited;
    }
    paygate = null;
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const createPayment = async (url: string) => {
    const res = await fetch(`${url}/v1/merchant/payment`, {
      method: 'POST',
      headers: {
        'Api-Key': credentials.merchantApiKey,
        'Merchant-Id': credentials.merchantId,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'shutdown-1' }),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { paymentId: string }).paymentId;
  };

  /** Every delivery in the child's database, oldest first, with its attempts and queued jobs. */
  const deliveries = async () => {
    const db = openDatabase(env.DATABASE_URL!);
    try {
      const rows = (await db.knex('webhook_deliveries').select('id').orderBy('created_at')) as { id: string }[];
      return await Promise.all(
        rows.map(async ({ id }) => ({
          delivery: (await findDelivery(db.knex, id))!,
          attempts: await listAttempts(db.knex, id),
          jobs: (await db.knex('jobs').where({ job_key: `whd:${id}` })) as unknown[],
        })),
      );
    } finally {
      await db.close();
    }
  };

  it('finishes the request and the delivery in flight, refuses new connections, and exits 0', async () => {
    paygate = await startPaygate({ ...env, PAYGATE_SHUTDOWN_TIMEOUT_MS: '15000' });
    const { url } = paygate;
    await createPayment(url);
    await waitFor('the delivery to reach the receiver', () => held.length === 1);

    // A request in flight: its headers are in, its body is still on the way.
    const body = JSON.stringify({ amount: { unit: 'iso4217/USD', value: '990' }, referenceId: 'in-flight' });
    const inFlight = httpRequest(`${url}/v1/merchant/payment`, {
      method: 'POST',
      headers: {
        'Api-Key': credentials.merchantApiKey,
        'Merchant-Id': credentials.merchantId,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        // Node's server answers 100 Continue as it hands the request to the app, so once the client sees it the
        // request is counted as in flight.
        Expect: '100-continue',
      },
    });
    const accepted = once(inFlight, 'continue');
    const answered = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      });
      inFlight.on('error', reject);
    });
    inFlight.flushHeaders();
    await accepted;
    inFlight.write(body.slice(0, 10));

    paygate.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', () => paygate!.logs.some((l) => l.msg === 'shutting down'));
    await assert.rejects(fetch(`${url}/healthz`), 'no new connection is accepted');

    inFlight.end(body.slice(10));
    assert.deepEqual(await answered, { status: 201, connection: 'close' });
    assert.equal(paygate.child.exitCode, null, 'still waiting for the delivery');
    held[0]!.writeHead(200).end('ok');

    assert.equal(await paygate.exited, 0, paygate.stderr());
    const [first, second] = await deliveries();
    assert.equal(first!.delivery.status, 'delivered');
    assert.equal(first!.attempts.length, 1);
    assert.equal(first!.attempts[0]!.delivered, true);
    // The in-flight request's payment.created: no new job starts during a shutdown, and the queue keeps it.
    assert.equal(second!.delivery.status, 'pending');
    assert.equal(second!.attempts.length, 0);
    assert.equal(second!.jobs.length, 1);
    assert.ok(paygate.logs.some((l) => l.msg === 'shut down'));
  });

  it('at the deadline, records the interrupted attempt and exits 0; a restarted process delivers it', async () => {
    paygate = await startPaygate({ ...env, PAYGATE_SHUTDOWN_TIMEOUT_MS: '300' });
    await createPayment(paygate.url);
    await waitFor('the delivery to reach the receiver', () => held.length === 1);

    const signalled = performance.now();
    paygate.child.kill('SIGTERM');
    assert.equal(await paygate.exited, 0, paygate.stderr());
    assert.ok(performance.now() - signalled < 5000, 'the deadline bounds the shutdown');
    assert.ok(paygate.logs.some((l) => l.msg === 'shutdown deadline passed; interrupting running jobs'));

    const all = await deliveries();
    assert.equal(all.length, 1);
    const { delivery, attempts, jobs } = all[0]!;
    assert.equal(delivery.status, 'pending', 'nothing lost: the delivery is still to be made');
    assert.equal(delivery.attempt_count, 1);
    assert.equal(delivery.lease_until, null, 'its lease was given back');
    assert.ok(delivery.next_attempt_at !== null);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]!.delivered, false);
    assert.match(attempts[0]!.error!, /interrupted/);
    assert.equal(jobs.length, 1, 'its retry is queued');

    // The restarted process, 6 s later on its clock: past the 5 s retry delay.
    receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    const restarted = await localRuntime(() => Date.now() + 6000);
    try {
      await restarted.jobs.drain();
    } finally {
      await restarted.close();
    }
    const [after] = await deliveries();
    assert.equal(after!.delivery.status, 'delivered');
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id']);
  });
});

describe('ops.shutdown.draining', () => {
  it('answers new requests 503 with Connection: close, readiness 503, and liveness 200', async () => {
    const runtime = await testRuntime();
    const requests = new InFlightRequests();
    const server = await listen(createApp({ runtime, requests, validateResponses: true }));
    try {
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      requests.drain();
      const refused = await fetch(`${server.url}/v1/merchant/payments`);
      assert.equal(refused.headers.get('Connection'), 'close');
      await expectError(refused, 503, 'internal_error');
      const ready = await fetch(`${server.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.deepEqual(await expectContractResponse('ops', '/readyz', ready), { status: 'shutting_down', checks: {} });
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      assert.equal(requests.count, 0);
      await requests.idle();
    } finally {
      await server.close();
      await runtime.close();
    }
  });
});
