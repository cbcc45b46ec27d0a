/**
 * Delivery across real worker processes on PostgreSQL: a worker killed with SIGKILL in the middle of an attempt
 * loses nothing, and two workers never make the same attempt twice.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { Webhook } from '@paygate/webhook-verifier';
import { createRuntime, loadConfig, type Runtime } from '@paygate/server';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { spawnCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { eventually } from '../helpers/wait.js';

const SWEEP_MS = 300;
const LEASE_MS = 1500;

function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  return eventually(what, condition, { timeoutMs, intervalMs: 50 }).then(() => undefined);
}

describe('webhooks.workers [postgres]', function () {
  this.timeout(60_000);
  let test: TestDatabase;
  let runtime: Runtime;
  let receiver: Receiver;
  let secret: string;
  let merchantId: string;
  const workers: ChildProcess[] = [];
  const env: Record<string, string> = {
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
  };

  beforeEach(async () => {
    test = await createTestDatabase('postgres');
    env.DATABASE_URL = test.url;
    runtime = await createRuntime({
      config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
      db: test.db,
      logger: pino({ level: 'silent' }),
    });
    receiver = await startReceiver();
    merchantId = await seedMerchant(test.db.knex);
    ({ secret } = await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` }));
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await receiver.close();
    await runtime.close();
    await test.drop();
  });

  async function startWorker(): Promise<ChildProcess> {
    const child = spawnCli(
      ['worker', '--json', '--sweep-interval-ms', String(SWEEP_MS), '--lease-ms', String(LEASE_MS)],
      env,
    );
    workers.push(child);
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    assert.equal(JSON.parse(line).worker, 'ready');
    return child;
  }

  const newPayment = (ref: string) =>
    createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: ref,
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 3_600_000,
      successUrl: null,
      errorUrl: null,
    });

  it('a worker killed mid-delivery: the event is still delivered by another, within the sweep interval', async () => {
    // The first request is held open forever, so the first worker is inside the attempt when it dies.
    let calls = 0;
    receiver.respond = (_req, res) => {
      if (++calls > 1) res.writeHead(200).end('ok');
    };
    const first = await startWorker();
    const payment = await newPayment('crash');
    await waitFor(() => receiver.received.length === 1, 15_000, 'the first attempt to reach the receiver');
    first.kill('SIGKILL');
    await once(first, 'exit');

    await startWorker();
    // Measured from the second worker's start, which a loaded machine can take seconds over.
    const readyAt = Date.now();
    await waitFor(
      async () => (await test.db.knex('webhook_deliveries').where({ status: 'delivered' })).length === 1,
      15_000,
      'the delivery to complete on the second worker',
    );
    // The lease of the dead worker must pass before the sweeper hands the attempt on: seconds, not graphile-worker's
    // 4-hour lock expiry. The bound leaves room for a loaded machine; webhooks.workers.killRecovery times it closely.
    const took = Date.now() - readyAt;
    assert.ok(took < LEASE_MS + 10 * SWEEP_MS + 15_000, `recovered in ${took} ms, not after 4 hours`);
    assert.equal(receiver.received.length, 2);
    const [a, b] = receiver.received;
    assert.equal(a!.headers['webhook-id'], b!.headers['webhook-id'], 'the same event id on the retry');
    const event = new Webhook(secret).verify(b!.body, b!.headers) as { data: { payment_id: string } };
    assert.equal(event.data.payment_id, payment.id);
  });

  it('two workers and no crash: every event delivered, no attempt made twice for the same step', async () => {
    receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    await Promise.all([startWorker(), startWorker()]);
    const count = 40;
    await Promise.all(Array.from({ length: count }, (_, i) => newPayment(`order-${i}`)));
    await waitFor(
      async () => (await test.db.knex('webhook_deliveries').where({ status: 'delivered' })).length === count,
      30_000,
      'all deliveries',
    );
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(ids.length, count, 'one POST per event');
    assert.equal(new Set(ids).size, count);
    const attempts = (await test.db.knex('webhook_attempts').select('delivery_id', 'attempt')) as {
      delivery_id: string;
      attempt: number;
    }[];
    assert.equal(attempts.length, count);
    assert.ok(attempts.every((a) => a.attempt === 1));
  });
});
