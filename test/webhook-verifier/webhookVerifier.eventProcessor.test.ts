import assert from 'node:assert/strict';
import {
  EventProcessor,
  memoryStore,
  sqlStore,
  type EventProcessorOptions,
  type EventStore,
  type PaymentStatus,
  type WebhookEvent,
} from '@paygate/webhook-verifier';
import { makeEvent } from './helpers.js';
import { sqlBackends, type SqlBackend } from './sqlBackends.js';

function recorder(
  options: Omit<EventProcessorOptions, 'onStatus' | 'onSucceeded'> & {
    failSucceeded?: number;
    /** Event ids whose first onStatus call throws. */
    failStatusOnce?: string[];
  } = {},
) {
  const statuses: [PaymentStatus, string][] = [];
  const succeeded: string[] = [];
  let failSucceeded = options.failSucceeded ?? 0;
  const failStatusOnce = new Set(options.failStatusOnce);
  const processor = new EventProcessor({
    ...options,
    onStatus: (status, event) => {
      if (failStatusOnce.delete(event.id)) throw new Error('onStatus failed');
      statuses.push([status, event.id]);
    },
    onSucceeded: async (event) => {
      if (failSucceeded-- > 0) throw new Error('fulfilment failed');
      succeeded.push(event.id);
    },
  });
  return { processor, statuses, succeeded };
}

const version = (payment_state_version: number, status: PaymentStatus, type: WebhookEvent['type'], extra = {}) =>
  makeEvent({ type, data: { payment_state_version, status, ...extra } });

interface StoreFixture {
  before?(): Promise<void>;
  store(): Promise<EventStore>;
  after?(): Promise<void>;
}

const memory: [string, () => StoreFixture] = ['memoryStore', () => ({ store: async () => memoryStore() })];
const sql = sqlBackends.map(([name, open]): [string, () => StoreFixture] => [
  `sqlStore on ${name}`,
  () => {
    let backend: SqlBackend;
    return {
      before: async () => void (backend = await open()),
      store: async () => {
        await backend.reset();
        return sqlStore({ query: backend.query, dialect: backend.dialect });
      },
      after: () => backend.close(),
    };
  },
]);

for (const [name, fixture] of [memory, ...sql]) {
  describe(`webhookVerifier.eventProcessor with ${name}`, () => {
    const backend = fixture();
    let store: EventStore;
    before(async () => backend.before?.());
    beforeEach(async () => (store = await backend.store()));
    after(async () => backend.after?.());

    it('processes an event once and reports a redelivery of the same id as a duplicate', async () => {
      const { processor, statuses } = recorder({ store });
      const created = version(0, 'requires_action', 'payment.created');
      assert.deepEqual(await processor.process(created), { outcome: 'processed', fulfilled: false });
      assert.deepEqual(await processor.process(structuredClone(created)), { outcome: 'duplicate', fulfilled: false });
      assert.deepEqual(statuses, [['requires_action', created.id]]);
    });

    it('accepts version 0 as the first event and then ignores another event at version 0', async () => {
      const { processor, statuses } = recorder({ store });
      const first = version(0, 'requires_action', 'payment.created');
      const sameVersion = version(0, 'requires_action', 'payment.created');
      assert.equal((await processor.process(first)).outcome, 'processed');
      assert.deepEqual(await processor.process(sameVersion), { outcome: 'stale', fulfilled: false });
      assert.deepEqual(statuses, [['requires_action', first.id]]);
    });

    it('ignores events at or below the highest version processed, so late arrivals do not regress the status', async () => {
      const { processor, statuses, succeeded } = recorder({ store });
      const created = version(0, 'requires_action', 'payment.created');
      const processing = version(1, 'processing', 'payment.processing');
      const success = version(2, 'succeeded', 'payment.succeeded');
      assert.deepEqual(await processor.process(success), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(await processor.process(processing), { outcome: 'stale', fulfilled: false });
      assert.deepEqual(await processor.process(created), { outcome: 'stale', fulfilled: false });
      assert.deepEqual(statuses, [['succeeded', success.id]]);
      assert.deepEqual(succeeded, [success.id]);
    });

    it('calls onSucceeded exactly once, not again for the later payment.settled that also says succeeded', async () => {
      const { processor, statuses, succeeded } = recorder({ store });
      const processing = version(1, 'processing', 'payment.processing');
      const success = version(2, 'succeeded', 'payment.succeeded');
      const settled = version(3, 'succeeded', 'payment.settled', {
        settled: { settled_at: '2026-02-18T11:00:00.000Z', settlement_amount: { unit: 'iso4217/USD', value: '990' } },
      });
      await processor.process(processing);
      assert.deepEqual(await processor.process(success), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(await processor.process(settled), { outcome: 'processed', fulfilled: false });
      assert.deepEqual(await processor.process(success), { outcome: 'duplicate', fulfilled: false });
      assert.deepEqual(succeeded, [success.id]);
      assert.deepEqual(
        statuses.map(([status]) => status),
        ['processing', 'succeeded', 'succeeded'],
      );
    });

    it('fulfils from a settled event when the succeeded event never arrived', async () => {
      const { processor, succeeded } = recorder({ store });
      const settled = version(3, 'succeeded', 'payment.settled');
      assert.deepEqual(await processor.process(settled), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(succeeded, [settled.id]);
    });

    it('keeps payments apart', async () => {
      const { processor, succeeded } = recorder({ store });
      const a = version(2, 'succeeded', 'payment.succeeded', { payment_id: 'pay_a' });
      const b = version(1, 'succeeded', 'payment.succeeded', { payment_id: 'pay_b' });
      assert.equal((await processor.process(a)).outcome, 'processed');
      assert.equal((await processor.process(b)).outcome, 'processed');
      assert.deepEqual(succeeded, [a.id, b.id]);
    });

    it('with requireLive, does not fulfil a test-mode payment but still reports its status', async () => {
      const { processor, statuses, succeeded } = recorder({ store, requireLive: true });
      const test = version(2, 'succeeded', 'payment.succeeded', { live: false, payment_id: 'pay_test' });
      const live = version(2, 'succeeded', 'payment.succeeded', { live: true, payment_id: 'pay_live' });
      assert.deepEqual(await processor.process(test), { outcome: 'processed', fulfilled: false });
      assert.deepEqual(await processor.process(live), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(succeeded, [live.id]);
      assert.deepEqual(statuses, [
        ['succeeded', test.id],
        ['succeeded', live.id],
      ]);
    });

    it('ignores unknown fields and unknown fee kinds', async () => {
      const { processor, succeeded } = recorder({ store });
      const event = version(2, 'succeeded', 'payment.succeeded', {
        processing: {
          processing_at: '2026-02-18T10:05:00.000Z',
          option_amount: { unit: 'caip19/eip155:1/erc20:0xa0b8', value: '1000000' },
          fee: {
            kind: 'tiered_volume',
            base_amount: { unit: 'iso4217/USD', value: '10' },
            percent: { numerator: '1', denominator: '100' },
            percent_amount: { unit: 'iso4217/USD', value: '10' },
            total_amount: { unit: 'iso4217/USD', value: '20' },
            tiers: [{ upto: '1000' }],
          },
          settlement_amount: { unit: 'iso4217/USD', value: '980' },
          buyer_caip10: 'eip155:1:0xabc',
          chain_caip2: 'eip155:1',
        },
        loyalty_points: 12,
      });
      Object.assign(event, { attempt: 3, metadata: { x: 1 } });
      assert.deepEqual(await processor.process(event), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(succeeded, [event.id]);
    });

    it('releases what it claimed when onSucceeded throws, so the retry fulfils', async () => {
      const { processor, succeeded } = recorder({ store, failSucceeded: 1 });
      const success = version(2, 'succeeded', 'payment.succeeded');
      await assert.rejects(processor.process(success), /fulfilment failed/);
      assert.deepEqual(await processor.process(success), { outcome: 'processed', fulfilled: true });
      assert.deepEqual(await processor.process(success), { outcome: 'duplicate', fulfilled: false });
      assert.deepEqual(succeeded, [success.id]);
      assert.deepEqual(await processor.process(version(1, 'processing', 'payment.processing')), {
        outcome: 'stale',
        fulfilled: false,
      });
    });

    it('fulfils on the retry of a failed succeeded event after a newer settled event went through meanwhile', async () => {
      const success = version(2, 'succeeded', 'payment.succeeded');
      const settled = version(3, 'succeeded', 'payment.settled');
      let failFirst!: () => void;
      const firstAttemptFails = new Promise<void>((resolve) => (failFirst = resolve));
      let calls = 0;
      const succeeded: string[] = [];
      // Two receiver instances sharing the store: the newer event is handled by the other one meanwhile.
      const [instanceA, instanceB] = [0, 1].map(
        () =>
          new EventProcessor({
            store,
            onSucceeded: async (event) => {
              calls += 1;
              if (calls === 1) {
                await firstAttemptFails;
                throw new Error('fulfilment failed');
              }
              succeeded.push(event.id);
            },
          }),
      );
      const first = instanceA!.process(success);
      while (calls === 0) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(await instanceB!.process(settled), { outcome: 'processed', fulfilled: false });
      failFirst();
      await assert.rejects(first, /fulfilment failed/);
      assert.deepEqual(await instanceA!.process(success), { outcome: 'stale', fulfilled: true });
      assert.deepEqual(succeeded, [success.id]);
    });

    it('releases what it claimed when onStatus throws, without letting older versions through', async () => {
      const failed = version(3, 'failed', 'payment.failed');
      const { processor, statuses } = recorder({ store, failStatusOnce: [failed.id] });
      await processor.process(version(1, 'processing', 'payment.processing'));
      await assert.rejects(processor.process(failed), /onStatus failed/);
      // Older than the event awaiting its retry, so still ignored.
      assert.deepEqual(await processor.process(version(2, 'processing', 'payment.processing')), {
        outcome: 'stale',
        fulfilled: false,
      });
      assert.deepEqual(await processor.process(failed), { outcome: 'processed', fulfilled: false });
      assert.deepEqual(await processor.process(failed), { outcome: 'duplicate', fulfilled: false });
      assert.deepEqual(
        statuses.map(([status]) => status),
        ['processing', 'failed'],
      );
    });

    it('rejects something that is not a webhook event', async () => {
      const { processor } = recorder({ store });
      const broken = version(1, 'processing', 'payment.processing');
      (broken.data as { payment_state_version: unknown }).payment_state_version = '1';
      await assert.rejects(processor.process(broken), TypeError);
      await assert.rejects(processor.process({} as WebhookEvent), TypeError);
    });
  });
}
