/**
 * Delivery across real worker processes on PostgreSQL: a worker killed with SIGKILL in the middle of an attempt
 * loses nothing, and two workers never make the same attempt twice.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Webhook } from '@paygate/webhook-verifier';
import { eventually } from '../helpers/wait.js';
import { useWorkerFixture } from './workers.js';

const SWEEP_MS = 300;
const LEASE_MS = 1500;

function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  return eventually(what, condition, { timeoutMs, intervalMs: 50 }).then(() => undefined);
}

describe('webhooks.workers [postgres]', function () {
  this.timeout(180_000);
  const f = useWorkerFixture({ each: true });
  const startWorker = () => f.startWorker(['--sweep-interval-ms', String(SWEEP_MS), '--lease-ms', String(LEASE_MS)]);
  const newPayment = f.newPayment;

  it('a worker killed mid-delivery: the event is still delivered by another, within the sweep interval', async () => {
    // The first request is held open forever, so the first worker is inside the attempt when it dies.
    let calls = 0;
    f.receiver.respond = (_req, res) => {
      if (++calls > 1) res.writeHead(200).end('ok');
    };
    const first = await startWorker();
    const payment = await newPayment('crash');
    await waitFor(() => f.receiver.received.length === 1, 15_000, 'the first attempt to reach the receiver');
    first.kill('SIGKILL');
    await once(first, 'exit');

    await startWorker();
    // Measured from the second worker's start, which a loaded machine can take seconds over.
    const readyAt = Date.now();
    await waitFor(
      async () => (await f.test.db.knex('webhook_deliveries').where({ status: 'delivered' })).length === 1,
      15_000,
      'the delivery to complete on the second worker',
    );
    // The lease of the dead worker must pass before the sweeper hands the attempt on: seconds, not graphile-worker's
    // 4-hour lock expiry. The bound leaves room for a loaded machine; webhooks.workers.killRecovery times it closely.
    const took = Date.now() - readyAt;
    assert.ok(took < LEASE_MS + 10 * SWEEP_MS + 15_000, `recovered in ${took} ms, not after 4 hours`);
    assert.equal(f.receiver.received.length, 2);
    const [a, b] = f.receiver.received;
    assert.equal(a!.headers['webhook-id'], b!.headers['webhook-id'], 'the same event id on the retry');
    const event = new Webhook(f.secret).verify(b!.body, b!.headers) as { data: { payment_id: string } };
    assert.equal(event.data.payment_id, payment.id);
  });

  it('two workers and no crash: every event delivered, no attempt made twice for the same step', async () => {
    f.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    await Promise.all([startWorker(), startWorker()]);
    const count = 40;
    await Promise.all(Array.from({ length: count }, (_, i) => newPayment(`order-${i}`)));
    await waitFor(
      async () => (await f.test.db.knex('webhook_deliveries').where({ status: 'delivered' })).length === count,
      30_000,
      'all deliveries',
    );
    const ids = f.receiver.received.map((r) => String(r.headers['webhook-id']));
    assert.equal(ids.length, count, 'one POST per event');
    assert.equal(new Set(ids).size, count);
    const attempts = (await f.test.db.knex('webhook_attempts').select('delivery_id', 'attempt')) as {
      delivery_id: string;
      attempt: number;
    }[];
    assert.equal(attempts.length, count);
    assert.ok(attempts.every((a) => a.attempt === 1));
  });
});
