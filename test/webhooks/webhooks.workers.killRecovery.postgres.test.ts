/**
 * Recovery after a worker is killed with attempts in flight, on PostgreSQL with two real `paygate worker` processes
 * and their default lease (server/src/webhooks/schedule.ts, Leases): every event the dead worker was sending is
 * delivered by the other within 30 s of the kill (or of its start, on a machine slower to start it), each step is recorded once, and no event is ever sent by two
 * workers at the same time. Real processes, real time: the recovery it measures is the one operators get.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { LEASE_MS, LEASE_SWEEP_MS } from '../../server/src/webhooks/schedule.js';
import { waitFor } from '../helpers/paygate.js';
import { useWorkerFixture } from './workers.js';

/** The bound the issue sets on recovery, from the kill to the last dead worker's event answered 2xx. */
const RECOVERY_BOUND_MS = 30_000;
/** Attempts in flight on the worker that dies (its concurrency, so the other worker takes the rest). */
const IN_FLIGHT = 4;
/** Events created after the kill, while the dead worker's leases run out. */
const AFTER_KILL = 4;

describe('webhooks.workers.killRecovery [postgres]', function () {
  // A failure detector, not a speed bound: two worker processes to load (tens of seconds each on a loaded machine)
  // and the recovery's own bound, which the test asserts itself.
  this.timeout(180_000);
  const f = useWorkerFixture({ each: false });
  /** A worker with the default lease, renewal and sweeps; ready once it takes jobs. */
  const startWorker = f.startWorker;
  const newPayment = f.newPayment;

  it(`a worker killed with ${IN_FLIGHT} attempts in flight: all delivered by the other within 30 s, none sent twice at once`, async () => {
    // Per event (webhook-id): requests open now, the most ever open at once, and when one was answered 2xx.
    const open = new Map<string, number>();
    const mostOpen = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    let hold = true;
    f.receiver.respond = (req, res) => {
      const id = String(req.headers['webhook-id']);
      open.set(id, (open.get(id) ?? 0) + 1);
      mostOpen.set(id, Math.max(mostOpen.get(id) ?? 0, open.get(id)!));
      res.on('close', () => open.set(id, open.get(id)! - 1));
      if (hold) return; // In flight until the sender goes away.
      res.writeHead(200).end('ok');
      answeredAt.set(id, Date.now());
    };

    // The first worker alone takes the first events and holds them in flight, each up to its concurrency.
    const doomed = await startWorker(['--concurrency', String(IN_FLIGHT)]);
    const before = await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => newPayment(`in-flight-${i}`)));
    await waitFor('every first attempt in flight on the first worker', () => f.receiver.received.length === IN_FLIGHT);
    const inFlight = new Set(f.receiver.received.map((r) => String(r.headers['webhook-id'])));
    assert.equal(inFlight.size, IN_FLIGHT);

    // Killed at once: were the other worker started first, a loaded machine can take longer to load it than an
    // attempt's timeout (15 s), and the doomed worker would record its held attempts as timed out before it dies.
    hold = false;
    doomed.kill('SIGKILL');
    const killedAt = Date.now();
    await once(doomed, 'exit');
    await waitFor('the dead worker’s requests to close', () => [...inFlight].every((id) => open.get(id) === 0));
    await startWorker();
    // Operators have the other worker running when one dies: recovery is timed from the kill, or from when the
    // other worker was up if this machine took longer than that to start it.
    const recoveryFrom = Math.max(killedAt, Date.now());
    const after = await Promise.all(Array.from({ length: AFTER_KILL }, (_, i) => newPayment(`after-kill-${i}`)));

    const all = before.length + after.length;
    const delivered = () => f.test.db.knex('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' });
    await waitFor(
      'every event delivered',
      async () => Number((await delivered())[0]!.n) === all,
      RECOVERY_BOUND_MS + 5000 - (Date.now() - recoveryFrom),
    );

    const recovery = [...inFlight].map((id) => answeredAt.get(id)! - recoveryFrom).sort((a, b) => a - b);
    const latest = recovery[recovery.length - 1]!;
    console.log(
      `      recovery after kill -9: ${recovery.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} ` +
        `(lease ${LEASE_MS / 1000} s, lease sweep ${LEASE_SWEEP_MS / 1000} s)`,
    );
    assert.ok(
      latest < RECOVERY_BOUND_MS,
      `the last in-flight event was answered ${latest} ms after the kill (or the other worker's start)`,
    );

    // Each in-flight event: sent twice (the dead worker's attempt, the recovery), never both at once; the others once.
    const sends = new Map<string, number>();
    for (const r of f.receiver.received) {
      const id = String(r.headers['webhook-id']);
      sends.set(id, (sends.get(id) ?? 0) + 1);
    }
    assert.equal(sends.size, all);
    for (const [id, n] of sends) assert.equal(n, inFlight.has(id) ? 2 : 1, `requests for ${id}`);
    for (const [id, most] of mostOpen) assert.equal(most, 1, `requests for ${id} open at once`);

    // One recorded attempt per step: the dead worker recorded nothing, the recovery recorded step 1 once.
    const attempts = (await f.test.db
      .knex('webhook_attempts')
      .select('delivery_id', 'attempt', 'delivered')
      .orderBy('delivery_id')) as { delivery_id: string; attempt: number; delivered: boolean }[];
    assert.equal(attempts.length, all);
    assert.equal(new Set(attempts.map((a) => a.delivery_id)).size, all);
    assert.ok(attempts.every((a) => a.attempt === 1 && a.delivered));
  });
});
