/**
 * The PostgreSQL hot path of an attempt: claims and successful records of the attempts a process makes at the same
 * moment share one prepared statement. Each must come out as if it had run alone: one winner per delivery, a record
 * kept only under its own lease, one attempt row per step, and a failing combination failing only its bad row.
 */
import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import type { Runtime } from '@paygate/server';
import {
  claimDeliveryWithContext,
  findDelivery,
  listAttempts,
  recordDeliveredAttempt,
  type AttemptRow,
} from '../../server/src/db/queries/webhooks.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { attemptDelivery } from '../../server/src/webhooks/delivery.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

const LEASE_MS = 60_000;

describe('webhooks.combined', () => {
  describe('[postgres]', function () {
    this.timeout(180_000);
    let test: TestDatabase;
    let runtime: Runtime;
    let clock: TestClock;
    let receiver: Receiver;
    let merchantId: string;
    let secret: string;
    /** The runtime's combined steps, which its own attempts share. */
    const steps = () => runtime.deliveryParts.steps;

    beforeEach(async () => {
      test = await createTestDatabase('postgres');
      clock = testClock();
      runtime = await testRuntime({ db: test.db, clock });
      receiver = await startReceiver();
      merchantId = await seedMerchant(test.db.knex);
      ({ secret } = await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` }));
    });
    afterEach(async () => {
      await receiver.close();
      await runtime.close();
      await test.drop();
    });

    /** Payments whose `payment.created` deliveries are pending and due; no job runner takes them. */
    async function pendingDeliveries(n: number): Promise<string[]> {
      for (let i = 0; i < n; i++) {
        await createPayment(runtime, {
          merchantId,
          live: false,
          referenceId: `order-${i}`,
          amount: { unit: 'iso4217/USD', value: '1250' },
          expiresAt: clock.now() + 3_600_000,
          successUrl: null,
          errorUrl: null,
        });
      }
      const rows = (await test.db.knex('webhook_deliveries').select('id').orderBy('created_at')) as { id: string }[];
      return rows.map((r) => r.id);
    }

    const delivered = (deliveryId: string, attempt = 1): AttemptRow => ({
      delivery_id: deliveryId,
      attempt,
      started_at: clock.now(),
      status: 200,
      latency_ms: 3,
      error: null,
      response_body: 'ok',
      delivered: true,
    });

    it('attempts started together: each delivered once, signed, with one attempt row', async () => {
      const ids = await pendingDeliveries(7);
      // Twice each, at once: the second attempt of a delivery loses the claim, in the same statement or the next.
      const results = await Promise.all([...ids, ...ids].map((id) => attemptDelivery(runtime, id)));
      assert.equal(results.filter((r) => r?.delivered).length, 7);
      assert.equal(results.filter((r) => r === null).length, 7);
      assert.equal(receiver.received.length, 7);
      const verifier = new Webhook(secret, { now: () => Math.floor(clock.now() / 1000) });
      for (const hit of receiver.received) verifier.verify(hit.body, hit.headers);
      for (const id of ids) {
        const row = await findDelivery(test.db.knex, id);
        assert.equal(row!.status, 'delivered');
        assert.equal(row!.attempt_count, 1);
        assert.equal(row!.lease_owner, null);
        assert.equal(row!.delivered_at, clock.now());
        const attempts = await listAttempts(test.db.knex, id);
        assert.deepEqual(
          attempts.map((a) => [a.attempt, a.status, a.delivered]),
          [[1, 200, true]],
        );
      }
    });

    it('two claims of one delivery in one statement: one wins, and it is the lease owner', async () => {
      const [id] = await pendingDeliveries(1);
      const now = clock.now();
      const [a, b, c] = await Promise.all(
        ['owner-a', 'owner-b', 'owner-c'].map((owner) => claimDeliveryWithContext(steps(), id!, owner, now, LEASE_MS)),
      );
      const winners = [a, b, c].filter((x) => x !== null);
      assert.equal(winners.length, 1);
      const row = await findDelivery(test.db.knex, id!);
      assert.equal(row!.lease_owner, winners[0]!.delivery.lease_owner);
      assert.equal(row!.lease_until, now + LEASE_MS);
      assert.ok(winners[0]!.payload?.startsWith('{'), 'the event payload comes with the claim');
      assert.equal(winners[0]!.endpoint?.url, `${receiver.url}/hooks`);
    });

    it('a record is kept only under its own lease; one taken over after it passed is not recorded', async () => {
      const [id] = await pendingDeliveries(1);
      const first = await claimDeliveryWithContext(steps(), id!, 'owner-old', clock.now(), LEASE_MS);
      assert.ok(first);
      assert.equal(
        await claimDeliveryWithContext(steps(), id!, 'owner-early', clock.now() + LEASE_MS - 1, LEASE_MS),
        null,
        'not while the lease holds',
      );
      clock.advance(LEASE_MS + 1);
      const second = await claimDeliveryWithContext(steps(), id!, 'owner-new', clock.now(), LEASE_MS);
      assert.ok(second);
      assert.equal(await recordDeliveredAttempt(steps(), 'owner-old', delivered(id!), clock.now()), false);
      assert.deepEqual(await listAttempts(test.db.knex, id!), []);
      assert.equal(await recordDeliveredAttempt(steps(), 'owner-new', delivered(id!), clock.now()), true);
      const attempts = await listAttempts(test.db.knex, id!);
      assert.equal(attempts.length, 1);
      assert.equal((await findDelivery(test.db.knex, id!))!.status, 'delivered');
    });

    it('a claim and a record of one delivery in one statement: exactly one takes effect', async () => {
      const [id] = await pendingDeliveries(1);
      assert.ok(await claimDeliveryWithContext(steps(), id!, 'owner-old', clock.now(), LEASE_MS));
      clock.advance(LEASE_MS + 1);
      const [record, claim] = await Promise.all([
        recordDeliveredAttempt(steps(), 'owner-old', delivered(id!), clock.now()),
        claimDeliveryWithContext(steps(), id!, 'owner-new', clock.now(), LEASE_MS),
      ]);
      const row = await findDelivery(test.db.knex, id!);
      const attempts = await listAttempts(test.db.knex, id!);
      if (record) {
        assert.equal(claim, null);
        assert.equal(row!.status, 'delivered');
        assert.equal(attempts.length, 1);
      } else {
        assert.ok(claim);
        assert.equal(row!.status, 'pending');
        assert.equal(row!.lease_owner, 'owner-new');
        assert.equal(attempts.length, 0);
      }
    });

    it('many records in one statement; a step already recorded fails only its own record', async () => {
      const ids = await pendingDeliveries(3);
      for (const [i, id] of ids.entries())
        assert.ok(await claimDeliveryWithContext(steps(), id, `owner-${i}`, clock.now(), LEASE_MS));
      // The middle delivery's step 1 is somehow recorded already: the unique (delivery, attempt) refuses a second.
      await test.db.knex('webhook_attempts').insert({ ...delivered(ids[1]!), status: 500, delivered: false });
      const results = await Promise.allSettled(
        ids.map((id, i) => recordDeliveredAttempt(steps(), `owner-${i}`, delivered(id), clock.now())),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal((await findDelivery(test.db.knex, ids[0]!))!.status, 'delivered');
      assert.equal((await findDelivery(test.db.knex, ids[2]!))!.status, 'delivered');
      const middle = await findDelivery(test.db.knex, ids[1]!);
      assert.equal(middle!.status, 'pending', 'nothing of the refused record is kept');
      assert.equal(middle!.lease_owner, 'owner-1');
    });
  });
});
