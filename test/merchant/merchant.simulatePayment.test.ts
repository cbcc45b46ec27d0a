import assert from 'node:assert/strict';
import { listEventsForPayment, type EventRow } from '../../server/src/db/queries/events.js';
import { transitions, type PaymentStatus } from '../../server/src/payments/stateMachine.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

const SAMPLE_UNIT = 'caip19/eip155:31337/erc20:0x0000000000000000000000000000000000000000';
const FEE_CONFIG = {
  kind: 'base_plus_percent',
  base: { unit: 'iso4217/USD', value: '10' },
  percent: { numerator: '1', denominator: '100' },
};

type Snapshot = Record<string, unknown> & { payment_state_version: number; status: PaymentStatus };

describeEachDatabase('merchant.simulatePayment', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db, feeConfig: FEE_CONFIG });
  });
  after(() => h.close());

  const events = (paymentId: string) => listEventsForPayment(h.runtime.db.knex, paymentId);
  const post = (paymentId: string, to: string, live = false) =>
    h.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, { body: { to }, live });
  const lastEvent = async (paymentId: string): Promise<EventRow> => (await events(paymentId)).at(-1)!;

  it('each allowed step is a real transition that emits its event with the full snapshot', async () => {
    const paths: [string, string[]][] = [
      ['processing', ['payment.processing']],
      ['failed', ['payment.failed']],
      ['expired', ['payment.expired']],
      ['cancelled', ['payment.cancelled']],
    ];
    for (const [to, types] of paths) {
      const { paymentId } = await createPayment(h);
      const snapshot = await expectJson<Snapshot>(await post(paymentId, to), 200);
      assert.equal(snapshot.status, to);
      assert.equal(snapshot.payment_state_version, 1);
      const event = await lastEvent(paymentId);
      assert.deepEqual([event.type, event.state_version], [types[0], 1]);
      assert.deepEqual(JSON.parse(event.payload).data, snapshot, 'the event carries the snapshot the call answered');
    }
  });

  it('fills the documented sample data, with the merchant fee', async () => {
    const { paymentId } = await createPayment(h);
    const processing = await simulate(h, paymentId, 'processing');
    const amount = { unit: SAMPLE_UNIT, value: '12500000' };
    assert.deepEqual(processing.processing, {
      processing_at: new Date(h.clock.now()).toISOString(),
      option_amount: amount,
      fee: {
        kind: 'base_plus_percent',
        base_amount: { unit: SAMPLE_UNIT, value: '100000' },
        percent: { numerator: '1', denominator: '100' },
        percent_amount: { unit: SAMPLE_UNIT, value: '125000' },
        total_amount: { unit: SAMPLE_UNIT, value: '225000' },
      },
      settlement_amount: amount,
      buyer_caip10: 'eip155:31337:0x000000000000000000000000000000000000dEaD',
      chain_caip2: 'eip155:31337',
    });
    const succeeded = await simulate(h, paymentId, 'succeeded');
    assert.deepEqual(succeeded.success, {
      succeeded_at: new Date(h.clock.now()).toISOString(),
      tx_id: `test:${paymentId}`,
    });

    const other = (await createPayment(h)).paymentId;
    assert.deepEqual((await simulate(h, other, 'failed')).failed, {
      failed_at: new Date(h.clock.now()).toISOString(),
      failure_reason: 'Simulated failure',
    });
    const cancelled = (await createPayment(h)).paymentId;
    assert.deepEqual((await simulate(h, cancelled, 'cancelled')).cancelled, {
      cancelled_at: new Date(h.clock.now()).toISOString(),
      cancelled_by: 'merchant',
      cancellation_reason: null,
    });
  });

  it('scales the amount by the currency’s minor unit (JPY has none) and has no fee without a fee configuration', async () => {
    const plain = await startHarness({ db: get().db });
    try {
      const { paymentId } = await createPayment(plain, {
        amount: { unit: 'iso4217/JPY', value: '1500' },
        referenceId: 'jp',
      });
      const processing = (await simulate(plain, paymentId, 'processing')).processing as Record<string, unknown>;
      assert.deepEqual(processing.option_amount, { unit: SAMPLE_UNIT, value: '1500000000' });
      assert.equal(processing.fee, null);
    } finally {
      await plain.close();
    }
  });

  it('a succeeded test payment settles automatically: payment.settled with status succeeded', async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'processing');
    const succeeded = await simulate(h, paymentId, 'succeeded');
    assert.equal(succeeded.status, 'succeeded');
    assert.equal(succeeded.settled, null, 'the answer is the state right after the requested step');
    assert.equal(succeeded.payment_state_version, 2);

    await h.runtime.jobs.drain();
    const settled = await lastEvent(paymentId);
    assert.deepEqual([settled.type, settled.state_version], ['payment.settled', 3]);
    const data = JSON.parse(settled.payload).data;
    assert.equal(data.status, 'succeeded');
    assert.deepEqual(data.settled, {
      settled_at: new Date(h.clock.now()).toISOString(),
      settlement_amount: { unit: SAMPLE_UNIT, value: '12500000' },
      // Test mode names the success transaction, a simulated one here.
      tx_id: `test:${paymentId}`,
    });
    const detail = await expectJson<Snapshot>(await h.call('GET', `/v1/merchant/payment/${paymentId}`), 200);
    assert.deepEqual(detail, data);
    // Settled already: simulating it is not a step any more.
    await expectError(await post(paymentId, 'settled'), 409, 'invalid_state');
  });

  it('settled by hand before the automatic settlement runs, once; the job then changes nothing', async () => {
    const { paymentId } = await createPayment(h);
    await simulate(h, paymentId, 'processing', 'succeeded');
    const settled = await simulate(h, paymentId, 'settled');
    assert.equal(settled.payment_state_version, 3);
    assert.notEqual(settled.settled, null);
    await expectError(await post(paymentId, 'settled'), 409, 'invalid_state');
    await h.runtime.jobs.drain();
    assert.deepEqual(
      (await events(paymentId)).map((e) => e.type),
      ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'],
    );
  });

  it('a failure while processing keeps the processing object', async () => {
    const { paymentId } = await createPayment(h);
    const failed = await simulate(h, paymentId, 'processing', 'failed');
    assert.notEqual(failed.processing, null);
    assert.notEqual(failed.failed, null);
    assert.equal(failed.payment_state_version, 2);
  });

  it('409 invalid_state for any step the table does not allow, changing nothing', async () => {
    const cases: [string[], string][] = [
      [[], 'succeeded'],
      [[], 'settled'],
      [['processing'], 'processing'],
      [['processing'], 'cancelled'],
      [['expired'], 'processing'],
      [['cancelled'], 'cancelled'],
      [['failed'], 'succeeded'],
      [['processing', 'succeeded'], 'failed'],
    ];
    for (const [before, to] of cases) {
      const { paymentId } = await createPayment(h);
      await simulate(h, paymentId, ...before);
      const count = (await events(paymentId)).length;
      await expectError(await post(paymentId, to), 409, 'invalid_state');
      assert.equal((await events(paymentId)).length, count, `${before.join('→')} → ${to} changed nothing`);
    }
  });

  it('a payment past its deadline is expired first, so only steps from expired remain', async () => {
    const { paymentId } = await createPayment(h, { ...usd(), expiresAt: Math.floor(h.clock.now() / 1000) + 120 });
    h.clock.advance(121_000);
    await expectError(await post(paymentId, 'processing'), 409, 'invalid_state');
    assert.deepEqual(
      (await events(paymentId)).map((e) => e.type),
      ['payment.created', 'payment.expired'],
    );
  });

  it('403 forbidden with a live key; 404 for a live payment or an unknown id', async () => {
    const test = (await createPayment(h)).paymentId;
    const live = (await createPayment(h, usd(), { live: true })).paymentId;
    await expectError(await post(test, 'processing', true), 403, 'forbidden');
    await expectError(await post(live, 'processing', true), 403, 'forbidden');
    await expectError(await post(live, 'processing'), 404, 'payment_not_found');
    await expectError(await post('pay_AAAAAAAAAAAAAAAAAAAAAAAA', 'processing'), 404, 'payment_not_found');
  });

  it('400 for an unknown target, an id over 128 characters, or an unreadable body', async () => {
    const { paymentId } = await createPayment(h);
    await expectError(await post(paymentId, 'refunded'), 400, 'params_validation');
    await expectError(
      await h.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, { body: {} }),
      400,
      'params_validation',
    );
    await expectError(await post('x'.repeat(129), 'processing'), 400, 'params_validation');
    // A malformed id is just an unknown one (docs/decisions.md §4).
    await expectError(await post('pay_short', 'processing'), 404, 'payment_not_found');
    const path = `/v1/merchant/test/payment/${paymentId}/simulate`;
    await expectError(await h.call('POST', path, { raw: '{"to":' }), 400, 'invalid_params');
    await expectError(await h.call('POST', path, { raw: '[]' }), 400, 'invalid_params');
    await expectError(
      await h.call('POST', path, { raw: JSON.stringify({ to: 'x'.repeat(300 * 1024) }) }),
      413,
      'invalid_params',
    );
    await expectError(
      await h.call('POST', path, { raw: 'to=processing', headers: { 'Content-Type': 'text/plain' } }),
      415,
      'invalid_params',
    );
  });

  describe('concurrency', () => {
    const assertGapFree = async (paymentId: string) => {
      const list = await events(paymentId);
      assert.deepEqual(
        list.map((e) => e.state_version),
        list.map((_, i) => i),
        'versions 0..n without gaps',
      );
      assert.equal(new Set(list.map((e) => e.type)).size, list.length, 'each event type at most once');
      // The sequence of statuses is a walk along the state machine.
      let status: PaymentStatus = 'requires_action';
      for (const e of list.slice(1)) {
        const next = JSON.parse(e.payload).data.status as PaymentStatus;
        if (e.type !== 'payment.settled') assert.ok(transitions[status].includes(next), `${status} → ${next}`);
        status = next;
      }
      return list;
    };

    it('50 parallel calls per step: one transition per allowed step, versions without gaps', async () => {
      const { paymentId } = await createPayment(h);
      for (const to of ['processing', 'succeeded', 'settled']) {
        const responses = await Promise.all(Array.from({ length: 50 }, () => post(paymentId, to)));
        const statuses = responses.map((r) => r.status);
        await Promise.all(responses.map((r) => r.arrayBuffer()));
        assert.equal(statuses.filter((s) => s === 200).length, 1, `${to}: ${statuses.join(',')}`);
        assert.equal(statuses.filter((s) => s === 409).length, 49);
      }
      await h.runtime.jobs.drain();
      const list = await assertGapFree(paymentId);
      assert.deepEqual(
        list.map((e) => e.type),
        ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'],
      );
    });

    it('50 parallel calls with mixed targets: each accepted call is exactly one event, versions without gaps', async () => {
      const targets = ['processing', 'succeeded', 'settled', 'failed', 'expired', 'cancelled'];
      for (let round = 0; round < 3; round++) {
        const { paymentId } = await createPayment(h);
        const responses = await Promise.all(
          Array.from({ length: 50 }, (_, i) => post(paymentId, targets[(i * 7 + round) % 6]!)),
        );
        const statuses = responses.map((r) => r.status);
        await Promise.all(responses.map((r) => r.arrayBuffer()));
        assert.ok(
          statuses.every((s) => s === 200 || s === 409),
          statuses.join(','),
        );
        const list = await assertGapFree(paymentId);
        assert.equal(statuses.filter((s) => s === 200).length, list.length - 1, 'one event per accepted call');
      }
    });
  });
});
