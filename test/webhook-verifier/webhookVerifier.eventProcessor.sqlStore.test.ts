import assert from 'node:assert/strict';
import {
  EventProcessor,
  sqlStore,
  sqlStoreSchema,
  type ProcessResult,
  type WebhookEvent,
} from '@paygate/webhook-verifier';
import { makeEvent } from './helpers.js';
import { sqlBackends, type SqlBackend } from './sqlBackends.js';
import { eventually, simulatedWork } from '../helpers/wait.js';

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

function lifecycle(paymentId: string): WebhookEvent[] {
  const at = (payment_state_version: number, status: WebhookEvent['data']['status'], type: WebhookEvent['type']) =>
    makeEvent({ type, data: { payment_id: paymentId, payment_state_version, status } });
  return [
    at(0, 'requires_action', 'payment.created'),
    at(1, 'processing', 'payment.processing'),
    at(2, 'succeeded', 'payment.succeeded'),
    at(3, 'succeeded', 'payment.settled'),
  ];
}

const count = (results: ProcessResult[], outcome: ProcessResult['outcome']) =>
  results.filter((r) => r.outcome === outcome).length;

for (const [name, open] of sqlBackends) {
  describe(`webhookVerifier.eventProcessor.sqlStore on ${name}`, () => {
    let backend: SqlBackend;
    before(async () => void (backend = await open()));
    beforeEach(async () => backend.reset());
    after(async () => backend.close());

    const newStore = (now?: () => number) => sqlStore({ query: backend.query, dialect: backend.dialect, now });

    async function processorSmoke() {
      const processor = new EventProcessor({ store: newStore() });
      const [created] = lifecycle('pay_schema');
      assert.deepEqual(await processor.process(created!), { outcome: 'processed', fulfilled: false });
      assert.deepEqual(await processor.process(created!), { outcome: 'duplicate', fulfilled: false });
    }

    it('ships an idempotent schema and refuses unknown dialects', async () => {
      await backend.exec(sqlStoreSchema(backend.dialect));
      await processorSmoke();
      assert.throws(() => sqlStoreSchema('mysql' as 'sqlite'), TypeError);
      assert.throws(() => sqlStore({ query: backend.query, dialect: 'mysql' as 'sqlite' }), TypeError);
    });

    it('fires onSucceeded once for concurrent deliveries of the same event to many receiver instances', async () => {
      const succeeded: string[] = [];
      const instances = Array.from(
        { length: 8 },
        () => new EventProcessor({ store: newStore(), onSucceeded: (event) => void succeeded.push(event.id) }),
      );
      const success = lifecycle('pay_dup')[2]!;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => instances[i % instances.length]!.process(structuredClone(success))),
      );
      assert.ok(backend.maxInFlight() > 1, 'deliveries did overlap');
      assert.equal(count(results, 'processed'), 1);
      assert.equal(count(results, 'duplicate'), 39);
      assert.deepEqual(succeeded, [success.id]);
    });

    it('fires onSucceeded once per payment when every stage races, duplicated, across instances', async () => {
      const succeeded: string[] = [];
      const instances = Array.from(
        { length: 4 },
        () =>
          new EventProcessor({ store: newStore(), onSucceeded: (event) => void succeeded.push(event.data.payment_id) }),
      );
      const payments = Array.from({ length: 15 }, (_, i) => `pay_race_${i}`);
      const deliveries = shuffle(payments.flatMap((id) => lifecycle(id).flatMap((event) => [event, event, event])));
      const results = await Promise.all(
        deliveries.map((event, i) => instances[i % instances.length]!.process(structuredClone(event))),
      );

      assert.ok(backend.maxInFlight() > 5, 'deliveries did overlap');
      assert.equal(count(results, 'duplicate'), payments.length * 4 * 2);
      assert.deepEqual([...succeeded].sort(), [...payments].sort());
      assert.equal(results.filter((r) => r.fulfilled).length, payments.length);
      const versions = await backend.rows<{ version: number | string }>(
        'SELECT version FROM paygate_webhook_payment_versions',
      );
      assert.equal(versions.length, payments.length);
      assert.deepEqual(new Set(versions.map((row) => Number(row.version))), new Set([3]));
    });

    it('hands one processor the events of a payment in accepted order while payments run in parallel', async () => {
      const statuses = new Map<string, string[]>();
      const succeeded: string[] = [];
      const processor = new EventProcessor({
        store: newStore(),
        onStatus: async (status, event) => {
          // Uneven callback durations would reorder completions without the per-payment queue.
          await simulatedWork(Math.random() * 3);
          statuses.set(event.data.payment_id, [...(statuses.get(event.data.payment_id) ?? []), status]);
        },
        onSucceeded: (event) => void succeeded.push(event.data.payment_id),
      });
      const payments = Array.from({ length: 10 }, (_, i) => `pay_order_${i}`);
      const deliveries = shuffle(payments.flatMap((id) => lifecycle(id).flatMap((event) => [event, event])));
      await Promise.all(deliveries.map((event) => processor.process(structuredClone(event))));

      assert.ok(backend.maxInFlight() > 1, 'payments did run in parallel');
      assert.deepEqual([...succeeded].sort(), [...payments].sort());
      const rank: Record<string, number> = { requires_action: 0, processing: 1, succeeded: 2 };
      for (const id of payments) {
        const seen = statuses.get(id)!;
        assert.deepEqual(
          seen,
          [...seen].sort((a, b) => rank[a]! - rank[b]!),
          `${id}: ${seen.join(', ')}`,
        );
        assert.equal(seen.at(-1), 'succeeded');
      }
    });

    it('lets a retry fulfil after an attempt failed while duplicates reached other instances', async () => {
      let attempts = 0;
      let answered = 0;
      const succeeded: string[] = [];
      const instance = () =>
        new EventProcessor({
          store: newStore(),
          onSucceeded: async (event) => {
            attempts += 1;
            // The first attempt fails only once every duplicate was answered while it held the event.
            if (attempts === 1) {
              await eventually('the nine duplicates to be answered', () => answered === 9);
              throw new Error('payment provider timeout');
            }
            succeeded.push(event.id);
          },
        });
      const success = lifecycle('pay_retry')[2]!;
      const first = await Promise.allSettled(
        Array.from({ length: 10 }, () =>
          instance()
            .process(structuredClone(success))
            .then((result) => {
              answered += 1;
              return result;
            }),
        ),
      );
      assert.equal(first.filter((r) => r.status === 'rejected').length, 1);
      assert.deepEqual(succeeded, []);
      const retries = await Promise.all(Array.from({ length: 10 }, () => instance().process(structuredClone(success))));
      assert.equal(count(retries, 'processed'), 1);
      assert.deepEqual(succeeded, [success.id]);
      assert.equal(attempts, 2);
      assert.deepEqual(await instance().process(lifecycle('pay_retry')[1]!), { outcome: 'stale', fulfilled: false });
    });

    it('prunes event-id records older than a date and keeps the version gate', async () => {
      let now = Date.UTC(2026, 1, 1);
      const store = newStore(() => now);
      const processor = new EventProcessor({ store });
      const [created, processing] = lifecycle('pay_prune');
      await processor.process(created!);
      now += 5 * 24 * 3600 * 1000;
      await processor.process(processing!);
      assert.equal(await store.pruneEvents(new Date(now - 24 * 3600 * 1000)), 1);
      const ids = await backend.rows<{ event_id: string }>('SELECT event_id FROM paygate_webhook_events');
      assert.deepEqual(
        ids.map((row) => row.event_id),
        [processing!.id],
      );
      assert.deepEqual(await processor.process(created!), { outcome: 'stale', fulfilled: false });
    });
  });
}
