/**
 * The lease of an attempt in flight (server/src/webhooks/schedule.ts, Leases), with short leases on the real clock:
 * a live worker renews it for as long as the attempt takes, so no second claimer gets the step; a worker whose lease
 * was taken over stops sending and records nothing; a worker that cannot renew ends its send before the lease passes.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Runtime } from '@paygate/server';
import { findDelivery, listAttempts } from '../../server/src/db/queries/webhooks.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { attemptDelivery, recoverExpiredLeases } from '../../server/src/webhooks/delivery.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { createTestDatabase, dialects, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { waitFor } from '../helpers/paygate.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testRuntime } from '../helpers/runtime.js';

const realClock = { now: () => Date.now(), set: () => undefined, advance: () => undefined };

for (const dialect of dialects) {
  describe(`webhooks.delivery.lease [${dialect}]`, function () {
    this.timeout(180_000);
    let test: TestDatabase;
    let runtime: Runtime;
    let receiver: Receiver;
    let merchantId: string;
    /** Requests the receiver holds open, in arrival order, and when each one's connection closed unanswered. */
    let held: { res: ServerResponse; cutAt: number | null }[];

    before(async () => {
      test = await createTestDatabase(dialect);
      runtime = await testRuntime({ db: test.db, clock: realClock });
      receiver = await startReceiver();
      merchantId = await seedMerchant(test.db.knex);
      await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
    });
    after(async () => {
      await receiver.close();
      await runtime.close();
      await test.drop();
    });
    beforeEach(() => {
      held = [];
      receiver.received.length = 0;
      receiver.respond = (_req, res) => {
        const hold = { res, cutAt: null as number | null };
        res.on('close', () => {
          if (!res.writableFinished) hold.cutAt = Date.now();
        });
        held.push(hold);
      };
    });

    /** A pending delivery, due now, whose job nobody runs: the test makes its attempts by hand. */
    async function newDelivery(): Promise<string> {
      const payment = await createPayment(runtime, {
        merchantId,
        live: false,
        referenceId: 'lease',
        amount: { unit: 'iso4217/USD', value: '1250' },
        expiresAt: Date.now() + 3_600_000,
        successUrl: null,
        errorUrl: null,
      });
      const row = (await test.db.knex('webhook_deliveries').where({ payment_id: payment.id }).first()) as {
        id: string;
      };
      return row.id;
    }
    const setLease = (leaseMs: number, renewIntervalMs: number) =>
      Object.assign(runtime.webhookOptions, { leaseMs, renewIntervalMs, attemptTimeoutMs: 10_000 });
    const takeOver = (id: string) =>
      test.db
        .knex('webhook_deliveries')
        .where({ id })
        .update({ lease_owner: 'another-worker', lease_until: Date.now() + 60_000 });

    it('an attempt in flight for over three leases keeps its lease: renewed, and no second claimer gets the step', async () => {
      setLease(300, 100);
      const id = await newDelivery();
      const started = Date.now();
      const attempt = attemptDelivery(runtime, id);
      await waitFor('the attempt to reach the receiver', () => held.length === 1);
      const first = (await findDelivery(test.db.knex, id))!.lease_until!;

      // For a second, other workers try the same step (an attempt, a lease sweep) every poll; none gets it.
      let tries = 0;
      let renewedTo = first;
      await waitFor(
        'a second of attempts by a second claimer',
        async () => {
          assert.equal(await attemptDelivery(runtime, id), null, 'a second claimer cannot take the step');
          assert.equal(await recoverExpiredLeases(runtime), 0, 'the lease never shows as passed');
          const row = (await findDelivery(test.db.knex, id))!;
          assert.ok(row.lease_until! >= Date.now(), 'the lease never lapses while the attempt is in flight');
          renewedTo = row.lease_until!;
          tries++;
          return Date.now() - started >= 1000;
        },
        5000,
      );
      assert.ok(tries > 3);
      assert.ok(renewedTo >= first + 600, `renewed while in flight (${first} → ${renewedTo})`);
      assert.equal(receiver.received.length, 1, 'one request: the step was sent once');

      held[0]!.res.writeHead(200).end('ok');
      const result = await attempt;
      assert.equal(result!.delivered, true);
      const row = (await findDelivery(test.db.knex, id))!;
      assert.equal(row.status, 'delivered');
      assert.equal(row.lease_owner, null);
      const attempts = await listAttempts(test.db.knex, id);
      assert.deepEqual(
        attempts.map((a) => [a.attempt, a.delivered]),
        [[1, true]],
      );
    });

    it('a lease taken over while the attempt is in flight: the send is cut at the next renewal, nothing recorded', async () => {
      setLease(300, 100);
      const id = await newDelivery();
      const attempt = attemptDelivery(runtime, id);
      await waitFor('the attempt to reach the receiver', () => held.length === 1);
      await takeOver(id);

      const result = await attempt;
      assert.equal(result!.delivered, false);
      assert.match(result!.error!, /another worker took the attempt over/);
      await waitFor('the receiver to see the request cut, never answered', () => held[0]!.cutAt !== null);
      const row = (await findDelivery(test.db.knex, id))!;
      assert.equal(row.lease_owner, 'another-worker', 'the new owner keeps the step');
      assert.equal(row.attempt_count, 0);
      assert.equal(row.status, 'pending');
      assert.deepEqual(await listAttempts(test.db.knex, id), [], 'the step is the new owner’s to record');
    });

    for (const status of [200, 500]) {
      it(`a lease taken over before the answer (${status}) arrives: the answer is not recorded`, async () => {
        // No renewal runs before the answer, so the loss is found by the record's own condition.
        setLease(20_000, 10_000);
        const id = await newDelivery();
        const attempt = attemptDelivery(runtime, id);
        await waitFor('the attempt to reach the receiver', () => held.length === 1);
        await takeOver(id);
        held[0]!.res.writeHead(status).end('late');

        const result = await attempt;
        assert.equal(result!.status, status);
        const row = (await findDelivery(test.db.knex, id))!;
        assert.equal(row.lease_owner, 'another-worker');
        assert.equal(row.attempt_count, 0);
        assert.equal(row.status, 'pending');
        assert.deepEqual(await listAttempts(test.db.knex, id), []);
      });
    }

    it('renewals that never get through: the send ends before the lease passes, recorded as a failed attempt', async () => {
      // The first renewal is due long after the lease: as if the database were out of reach the whole time.
      setLease(2000, 60_000);
      const id = await newDelivery();
      const attempt = attemptDelivery(runtime, id);
      await waitFor('the attempt to reach the receiver', () => held.length === 1);

      const result = await attempt;
      assert.match(result!.error!, /lease could not be renewed/);
      await waitFor('the receiver to see the request cut, never answered', () => held[0]!.cutAt !== null);
      const row = (await findDelivery(test.db.knex, id))!;
      assert.equal(row.status, 'pending', 'retried on the schedule');
      assert.equal(row.attempt_count, 1);
      assert.equal(row.lease_owner, null);
      const attempts = await listAttempts(test.db.knex, id);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.delivered, false);
      // A tenth of a lease before it passes (timed from the claim), so well inside it.
      assert.ok(attempts[0]!.latency_ms < 2000, `ended within the lease (${attempts[0]!.latency_ms} ms)`);
    });
  });
}
