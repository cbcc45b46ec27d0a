import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createRuntime, type Runtime } from '@paygate/server';
import { createPayment, expireIfOverdue, transitionPayment } from '../../server/src/payments/lifecycle.js';
import { sweepExpiredPayments } from '../../server/src/payments/tasks.js';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { ApiError } from '../../server/src/errors.js';
import { transitions, type PaymentStatus } from '../../server/src/payments/stateMachine.js';
import { testConfig } from '../helpers/config.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { testClock, type TestClock } from '../helpers/runtime.js';

const MINUTE = 60_000;

describeEachDatabase('payments.lifecycle', (get) => {
  let runtime: Runtime;
  let clock: TestClock;
  let merchantId: string;

  before(async () => {
    clock = testClock();
    runtime = await createRuntime({
      config: testConfig(),
      db: get().db,
      logger: pino({ level: 'silent' }),
      now: clock.now,
    });
    merchantId = await seedMerchant(get().db.knex);
  });
  after(() => runtime.close());

  const newPayment = (live = false) =>
    createPayment(runtime, {
      merchantId,
      live,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: clock.now() + 30 * MINUTE,
      successUrl: null,
      errorUrl: null,
    });

  it('create writes payment.created at version 0 with the full snapshot', async () => {
    const payment = await newPayment();
    const events = await listEventsForPayment(get().db.knex, payment.id);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event!.type, 'payment.created');
    assert.equal(event!.state_version, 0);
    assert.match(event!.id, /^evt_[0-9A-Za-z]{24}$/);
    const envelope = JSON.parse(event!.payload);
    assert.equal(envelope.api_version, '2026-02-18');
    assert.equal(envelope.created_at, new Date(clock.now()).toISOString());
    assert.deepEqual(envelope.data, {
      payment_id: payment.id,
      merchant_id: merchantId,
      live: false,
      payment_state_version: 0,
      reference_id: 'order-1',
      status: 'requires_action',
      amount: { unit: 'iso4217/USD', value: '1250' },
      created_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + 30 * MINUTE).toISOString(),
      processing: null,
      success: null,
      failed: null,
      cancelled: null,
      expired: null,
      settled: null,
      refunded: null,
      // What was sold: none given (issue 35 §1).
      description: null,
      line_items: [],
      buyer: null,
      metadata: {},
      // Not from a payment link (issue 35 §2).
      link_id: null,
    });
  });

  it('a transition bumps the version by one and writes its event in the same step', async () => {
    const payment = await newPayment();
    const amount = { unit: 'caip19/eip155:31337/erc20:0x0000000000000000000000000000000000000000', value: '12500000' };
    const processing = {
      processing_at: new Date(clock.now()).toISOString(),
      option_amount: amount,
      fee: null,
      settlement_amount: amount,
      buyer_caip10: 'eip155:31337:0x000000000000000000000000000000000000dEaD',
      chain_caip2: 'eip155:31337',
    };
    const { payment: next, changed } = await transitionPayment(runtime, payment.id, {
      to: 'processing',
      stages: { processing },
    });
    assert.equal(changed, true);
    assert.equal(next.state_version, 1);
    const events = await listEventsForPayment(get().db.knex, payment.id);
    assert.deepEqual(
      events.map((e) => [e.type, e.state_version]),
      [
        ['payment.created', 0],
        ['payment.processing', 1],
      ],
    );
    assert.deepEqual(JSON.parse(events[1]!.payload).data.processing, processing);
  });

  it('refuses every transition the state machine does not list, with invalid_state', async () => {
    const all = Object.keys(transitions) as PaymentStatus[];
    const payment = await newPayment();
    await transitionPayment(runtime, payment.id, {
      to: 'cancelled',
      stages: { cancelled: { cancelled_at: 'x', cancelled_by: 'merchant', cancellation_reason: null } },
    });
    for (const to of all.filter((s) => s !== 'cancelled')) {
      await assert.rejects(
        transitionPayment(runtime, payment.id, { to, stages: {} }),
        (err: unknown) => err instanceof ApiError && err.code === 'invalid_state',
      );
    }
    const stored = await findPayment(get().db.knex, payment.id);
    assert.equal(stored!.state_version, 1);
  });

  it('a repeat of the current status is not a change and writes nothing', async () => {
    const payment = await newPayment();
    await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    const again = await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    assert.equal(again.changed, false);
    assert.equal((await listEventsForPayment(get().db.knex, payment.id)).length, 2);
  });

  it('concurrent transitions of one payment: one wins each step, versions without gaps', async () => {
    const payment = await newPayment();
    const attempts = Array.from({ length: 20 }, (_, i) =>
      transitionPayment(runtime, payment.id, { to: i % 2 ? 'processing' : 'cancelled', stages: {} }).then(
        (r) => (r.changed ? 'changed' : 'same'),
        (err: unknown) => (err instanceof ApiError ? err.code : Promise.reject(err)),
      ),
    );
    const outcomes = await Promise.all(attempts);
    assert.equal(outcomes.filter((o) => o === 'changed').length, 1);
    const versions = (await listEventsForPayment(get().db.knex, payment.id)).map((e) => e.state_version);
    assert.deepEqual(versions, [0, 1]);
  });

  it('a succeeded test payment settles through a job, emitting payment.settled with status succeeded', async () => {
    const payment = await newPayment();
    await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    await transitionPayment(runtime, payment.id, {
      to: 'succeeded',
      stages: { success: { succeeded_at: 'x', tx_id: `test:${payment.id}` } },
    });
    await runtime.jobs.drain();
    const events = await listEventsForPayment(get().db.knex, payment.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['payment.created', 'payment.processing', 'payment.succeeded', 'payment.settled'],
    );
    const settled = JSON.parse(events[3]!.payload).data;
    assert.equal(settled.status, 'succeeded');
    assert.equal(settled.payment_state_version, 3);
    assert.deepEqual(settled.settled.settlement_amount, { unit: 'iso4217/USD', value: '1250' });
    await runtime.jobs.drain();
    assert.equal((await listEventsForPayment(get().db.knex, payment.id)).length, 4, 'settles once');
  });

  it('a succeeded live payment does not settle automatically', async () => {
    const payment = await newPayment(true);
    await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    await transitionPayment(runtime, payment.id, { to: 'succeeded', stages: {} });
    await runtime.jobs.drain();
    assert.equal((await findPayment(get().db.knex, payment.id))!.stages.settled, null);
  });

  it('expiry: a read past expiresAt moves the payment to expired, once', async () => {
    const payment = await newPayment();
    clock.advance(30 * MINUTE - 1);
    assert.equal((await expireIfOverdue(runtime, payment)).status, 'requires_action');
    clock.advance(1);
    const expired = await expireIfOverdue(runtime, payment);
    assert.equal(expired.status, 'expired');
    assert.deepEqual(expired.stages.expired, { expired_at: new Date(payment.expires_at).toISOString() });
    assert.equal((await expireIfOverdue(runtime, payment)).status, 'expired');
    const types = (await listEventsForPayment(get().db.knex, payment.id)).map((e) => e.type);
    assert.deepEqual(types, ['payment.created', 'payment.expired']);
  });

  it('the sweeper expires every overdue payment and leaves the rest', async () => {
    const overdue = await newPayment();
    clock.advance(10 * MINUTE);
    const fresh = await newPayment();
    clock.advance(25 * MINUTE);
    const moved = await sweepExpiredPayments(runtime);
    assert.ok(moved >= 1);
    assert.equal((await findPayment(get().db.knex, overdue.id))!.status, 'expired');
    assert.equal((await findPayment(get().db.knex, fresh.id))!.status, 'requires_action');
  });
});
