import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import type { Runtime } from '@paygate/server';
import { findDelivery, listAttempts, findEndpoint, type DeliveryRow } from '../../server/src/db/queries/webhooks.js';
import type { ApiError } from '../../server/src/errors.js';
import { createPayment, transitionPayment } from '../../server/src/payments/lifecycle.js';
import {
  createEndpoint,
  deleteEndpoint,
  rotateSecret,
  updateEndpointSettings,
} from '../../server/src/webhooks/endpoints.js';
import { replaySince, resendDelivery, resendFailedSince, sendTestEvent } from '../../server/src/webhooks/recovery.js';
import { RETRY_DELAYS_MS } from '../../server/src/webhooks/schedule.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('webhooks.delivery', () => {
  let runtime: Runtime;
  let clock: TestClock;
  let receiver: Receiver;
  let merchantId: string;
  let secret: string;
  let endpointId: string;
  let seq = 0;

  beforeEach(async () => {
    clock = testClock();
    runtime = await testRuntime({ clock });
    runtime.webhookOptions.attemptTimeoutMs = 300;
    receiver = await startReceiver();
    merchantId = await seedMerchant(runtime.db.knex, `mer_delivery${String(++seq).padStart(8, '0')}`);
    const created = await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
    secret = created.secret;
    endpointId = created.endpoint.id;
  });
  afterEach(async () => {
    await receiver.close();
    await runtime.close();
  });

  const newPayment = () =>
    createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '1250' },
      // Far beyond the retry schedule, so no expiry event joins the deliveries under test.
      expiresAt: clock.now() + 60 * DAY,
      successUrl: null,
      errorUrl: null,
    });
  const deliveries = () =>
    runtime.db.knex('webhook_deliveries').select('id', 'event_id', 'event_type', 'status').orderBy('created_at');
  const verifier = (s = secret) => new Webhook(s, { now: () => Math.floor(clock.now() / 1000) });

  it('delivers a signed event that the verifier accepts, with the spec headers', async () => {
    const payment = await newPayment();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 1);
    const [hit] = receiver.received;
    const event = verifier().verify(hit!.body, hit!.headers) as {
      id: string;
      type: string;
      data: { payment_id: string };
    };
    assert.equal(event.type, 'payment.created');
    assert.equal(event.data.payment_id, payment.id);
    assert.equal(hit!.headers['webhook-id'], event.id);
    assert.equal(hit!.headers['webhook-timestamp'], String(Math.floor(clock.now() / 1000)));
    assert.match(String(hit!.headers['user-agent']), /^Paygate-Webhooks\//);
    const [d] = await deliveries();
    assert.equal(d.status, 'delivered');
    const attempts = await listAttempts(runtime.db.knex, d.id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0]!.status, 200);
    assert.equal(attempts[0]!.response_body, 'ok');
  });

  it('500 then 200: retried after 5 s through the clock, delivered once, same webhook-id', async () => {
    let calls = 0;
    receiver.respond = (_req, res) => res.writeHead(++calls === 1 ? 500 : 200).end();
    await newPayment();
    await runtime.jobs.drain();
    const [d] = await deliveries();
    let row = await findDelivery(runtime.db.knex, d.id);
    assert.equal(row!.status, 'pending');
    assert.equal(row!.next_attempt_at, clock.now() + 5000);
    clock.advance(4999);
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 1, 'not before its time');
    clock.advance(1);
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 2);
    assert.equal(receiver.received[0]!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id']);
    row = await findDelivery(runtime.db.knex, d.id);
    assert.equal(row!.status, 'delivered');
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 2, 'delivered once');
  });

  it('follows the schedule exactly, then marks the delivery failed after 8 attempts', async () => {
    receiver.respond = (_req, res) => res.writeHead(503).end('down');
    await newPayment();
    await runtime.jobs.drain();
    const [d] = await deliveries();
    const gaps: number[] = [];
    for (let attempt = 2; attempt <= 8; attempt++) {
      const before = await findDelivery(runtime.db.knex, d.id);
      gaps.push(before!.next_attempt_at! - clock.now());
      clock.set(before!.next_attempt_at!);
      await runtime.sweep();
      await runtime.jobs.drain();
      assert.equal(receiver.received.length, attempt);
    }
    assert.deepEqual(gaps, RETRY_DELAYS_MS.slice(1));
    const final = await findDelivery(runtime.db.knex, d.id);
    assert.equal(final!.status, 'failed');
    assert.equal(final!.attempt_count, 8);
    assert.equal(final!.next_attempt_at, null);
    clock.advance(30 * DAY);
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 8, 'never retried automatically after the last attempt');
    assert.equal((await listAttempts(runtime.db.knex, d.id)).length, 8);
  });

  it('a receiver slower than the timeout is a failed attempt', async () => {
    receiver.respond = () => undefined;
    await newPayment();
    await runtime.jobs.drain();
    const [d] = await deliveries();
    const [attempt] = await listAttempts(runtime.db.knex, d.id);
    assert.equal(attempt!.delivered, false);
    assert.match(attempt!.error!, /timed out/);
  });

  it('a 302 is a failure and its target is never visited', async () => {
    receiver.respond = (req, res) =>
      req.url === '/hooks' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end();
    await newPayment();
    await runtime.jobs.drain();
    assert.deepEqual(
      receiver.received.map((r) => r.path),
      ['/hooks'],
    );
    const [d] = await deliveries();
    const [attempt] = await listAttempts(runtime.db.knex, d.id);
    assert.equal(attempt!.status, 302);
    assert.equal(attempt!.delivered, false);
  });

  it('a connection reset is a failed attempt', async () => {
    receiver.respond = (req) => req.socket.destroy();
    await newPayment();
    await runtime.jobs.drain();
    const [d] = await deliveries();
    const [attempt] = await listAttempts(runtime.db.knex, d.id);
    assert.equal(attempt!.delivered, false);
    assert.equal(attempt!.status, null);
  });

  it('rotation: deliveries in the 24 h overlap carry both signatures, each verifies', async () => {
    const { secret: next } = await rotateSecret(runtime, merchantId, 'test');
    await newPayment();
    await runtime.jobs.drain();
    const [hit] = receiver.received;
    assert.equal(String(hit!.headers['webhook-signature']).split(' ').length, 2);
    verifier(secret).verify(hit!.body, hit!.headers);
    verifier(next).verify(hit!.body, hit!.headers);
    clock.advance(DAY + 1);
    await newPayment();
    await runtime.jobs.drain();
    const late = receiver.received[1]!;
    assert.equal(String(late.headers['webhook-signature']).split(' ').length, 1);
    verifier(next).verify(late.body, late.headers);
    assert.throws(() => verifier(secret).verify(late.body, late.headers), /signature/i);
  });

  it('rotating again inside the overlap: the replaced secret becomes the previous one, the older stops at once', async () => {
    const { secret: second } = await rotateSecret(runtime, merchantId, 'test');
    clock.advance(HOUR);
    const { secret: third, endpoint } = await rotateSecret(runtime, merchantId, 'test');
    assert.equal(endpoint.previous_secret_expires_at, clock.now() + DAY, 'a fresh 24 hours');
    await newPayment();
    await runtime.jobs.drain();
    const [hit] = receiver.received;
    assert.equal(String(hit!.headers['webhook-signature']).split(' ').length, 2, 'never more than two');
    verifier(third).verify(hit!.body, hit!.headers);
    verifier(second).verify(hit!.body, hit!.headers);
    assert.throws(() => verifier(secret).verify(hit!.body, hit!.headers), /signature/i);
  });

  it('disables the endpoint after 5 days of failures; a success resets the clock', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    const failOnce = async () => {
      await newPayment();
      await runtime.jobs.drain();
    };
    await failOnce();
    clock.advance(4 * DAY);
    receiver.respond = (_req, res) => res.writeHead(200).end();
    await failOnce(); // a success: resets
    assert.equal((await findEndpoint(runtime.db.knex, endpointId))!.failing_since, null);
    receiver.respond = (_req, res) => res.writeHead(500).end();
    clock.advance(DAY);
    await failOnce();
    clock.advance(4 * DAY);
    await failOnce();
    assert.equal((await findEndpoint(runtime.db.knex, endpointId))!.enabled, true, '4 days of failures is not enough');
    clock.advance(DAY);
    await failOnce();
    const endpoint = await findEndpoint(runtime.db.knex, endpointId);
    assert.equal(endpoint!.enabled, false);
    assert.equal(endpoint!.disabled_reason, '5 days of failed deliveries');
    assert.deepEqual(
      await runtime.db.knex('webhook_deliveries').where({ status: 'pending' }).pluck('id'),
      [],
      'disabling ends the pending deliveries, the one that tripped it included',
    );
    const before = receiver.received.length;
    await failOnce();
    assert.equal(receiver.received.length, before, 'a disabled endpoint receives no events');
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: true });
    receiver.respond = (_req, res) => res.writeHead(200).end();
    await failOnce();
    assert.equal(receiver.received.length, before + 1, 're-enabled');
  });

  it('deleting an endpoint stops deliveries at once: pending ones become failed, the secrets are destroyed', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await newPayment();
    await runtime.jobs.drain();
    await rotateSecret(runtime, merchantId, 'test');
    await deleteEndpoint(runtime, merchantId, 'test');
    clock.advance(HOUR);
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 1);
    const [d] = await deliveries();
    assert.equal(d.status, 'failed');
    const gone = await findEndpoint(runtime.db.knex, endpointId);
    assert.equal(gone!.secret_sealed, '');
    assert.equal(gone!.previous_secret_sealed, null);
    await assert.rejects(
      deleteEndpoint(runtime, merchantId, 'test'),
      (err: ApiError) => err.code === 'invalid_params' && err.status === 404,
    );
  });

  it('disabling by hand fails the pending deliveries; enabling twice changes nothing', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await newPayment();
    await runtime.jobs.drain();
    assert.equal((await deliveries())[0].status, 'pending');
    const disabled = await updateEndpointSettings(runtime, merchantId, 'test', { enabled: false });
    assert.equal(disabled.disabled_reason, 'disabled by the merchant');
    assert.equal((await deliveries())[0].status, 'failed');
    clock.advance(HOUR);
    await runtime.sweep();
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 1, 'no attempt after the disable');
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: true });
    const failing = (await findEndpoint(runtime.db.knex, endpointId))!;
    assert.equal(failing.failing_since, null, 're-enabling clears the failure clock');
    await runtime.db.knex('webhook_endpoints').where({ id: endpointId }).update({ failing_since: 1 });
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: true });
    assert.equal((await findEndpoint(runtime.db.knex, endpointId))!.failing_since, 1, 'a repeat is no change');
  });

  it('each delivery records its trigger', async () => {
    const payment = await newPayment();
    await runtime.jobs.drain();
    const [original] = await deliveries();
    await resendDelivery(runtime, merchantId, 'test', original.id);
    await sendTestEvent(runtime, merchantId, 'test', 'payment.created');
    const failAll = () => runtime.db.knex('webhook_deliveries').update({ status: 'failed', next_attempt_at: null });
    await failAll();
    assert.equal(await replaySince(runtime, merchantId, 'test', clock.now()), 1);
    await failAll();
    // One per event (the payment's, the test's), however many of its deliveries failed.
    assert.equal(await resendFailedSince(runtime, merchantId, 'test', clock.now()), 2);
    const triggers = (await runtime.db.knex('webhook_deliveries').pluck('trigger')) as string[];
    assert.deepEqual([...triggers].sort(), ['event', 'replay', 'resend', 'resend', 'resend', 'test']);
    const rows = await runtime.db.knex('webhook_deliveries').where({ event_id: original.event_id });
    assert.ok(rows.every((r: { payment_id: string }) => r.payment_id === payment.id));
  });

  /** Runs a pending delivery through its whole schedule. */
  const exhaust = async (id: string) => {
    for (;;) {
      const row = await findDelivery(runtime.db.knex, id);
      if (row!.status !== 'pending') return;
      clock.set(row!.next_attempt_at!);
      await runtime.sweep();
      await runtime.jobs.drain();
    }
  };

  it('resend one starts a fresh attempt series for the same event, to the delivery’s own endpoint', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await newPayment();
    await runtime.jobs.drain();
    const [first] = await deliveries();
    await exhaust(first.id);
    assert.equal((await findDelivery(runtime.db.knex, first.id))!.status, 'failed');
    receiver.respond = (_req, res) => res.writeHead(200).end();
    const resent = await resendDelivery(runtime, merchantId, 'test', first.id);
    assert.equal(resent.trigger, 'resend');
    assert.equal(resent.event_id, first.event_id);
    assert.notEqual(resent.id, first.id);
    await runtime.jobs.drain();
    assert.equal((await findDelivery(runtime.db.knex, resent.id))!.status, 'delivered');
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    assert.equal(receiver.received.at(-1)!.body, receiver.received[0]!.body, 'the same body');
    assert.equal((await findDelivery(runtime.db.knex, first.id))!.status, 'failed', 'the original is left as it is');
    await assert.rejects(
      resendDelivery(runtime, merchantId, 'live', first.id),
      (err: ApiError) => err.code === 'invalid_params' && err.status === 404,
      'a delivery of the other mode is invisible',
    );
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: false });
    await assert.rejects(resendDelivery(runtime, merchantId, 'test', first.id), /is disabled/);
    await deleteEndpoint(runtime, merchantId, 'test');
    await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
    await assert.rejects(
      resendDelivery(runtime, merchantId, 'test', first.id),
      (err: ApiError) => err.code === 'invalid_state' && /deleted endpoint/.test(err.message),
    );
  });

  it('resend-failed since T resends each failed event once, and nothing that got through or is on its way', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    const t0 = clock.now();
    await newPayment();
    await newPayment();
    await runtime.jobs.drain();
    const [a, b] = await deliveries();
    await exhaust(a.id);
    await exhaust(b.id);
    // a is resent by hand and gets through: bulk resend leaves its event alone.
    receiver.respond = (_req, res) => res.writeHead(200).end();
    await resendDelivery(runtime, merchantId, 'test', a.id);
    await runtime.jobs.drain();
    const before = receiver.received.length;
    await assert.rejects(resendFailedSince(runtime, merchantId, 'test', clock.now() + 1000), /future/);
    assert.equal(await resendFailedSince(runtime, merchantId, 'test', clock.now()), 0, 'nothing failed after T');
    assert.equal(await resendFailedSince(runtime, merchantId, 'test', t0), 1, 'only b');
    assert.equal(await resendFailedSince(runtime, merchantId, 'test', t0), 0, 'b is pending: not doubled');
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, before + 1);
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], b.event_id);
    assert.equal(await resendFailedSince(runtime, merchantId, 'test', t0), 0, 'b was delivered');
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: false });
    await assert.rejects(
      resendFailedSince(runtime, merchantId, 'test', t0),
      (err: ApiError) => err.code === 'invalid_state' && err.status === 409,
    );
  });

  it('replay sends the events of the last 14 days the endpoint never received, and no older', async () => {
    await deleteEndpoint(runtime, merchantId, 'test');
    const p = await newPayment();
    clock.advance(2 * DAY);
    await transitionPayment(runtime, p.id, {
      to: 'cancelled',
      stages: { cancelled: { cancelled_at: 'x', cancelled_by: 'merchant', cancellation_reason: null } },
    });
    const { endpoint } = await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
    assert.ok(endpoint);
    await assert.rejects(replaySince(runtime, merchantId, 'test', clock.now() - 14 * DAY - 1), /14 days/);
    clock.advance(13 * DAY);
    const count = await replaySince(runtime, merchantId, 'test', clock.now() - 14 * DAY);
    assert.equal(count, 1, 'only the cancelled event is inside the window');
    await runtime.jobs.drain();
    assert.equal(receiver.received.length, 1);
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'payment.cancelled');
    assert.equal(
      await replaySince(runtime, merchantId, 'test', clock.now() - 14 * DAY),
      0,
      'received ones are not replayed',
    );
  });

  it('replay includes events whose every delivery failed, never test events, and only the endpoint’s types', async () => {
    const t0 = clock.now();
    await updateEndpointSettings(runtime, merchantId, 'test', { eventTypes: ['payment.cancelled'] });
    receiver.respond = (_req, res) => res.writeHead(500).end();
    const p = await newPayment();
    await transitionPayment(runtime, p.id, {
      to: 'cancelled',
      stages: { cancelled: { cancelled_at: 'x', cancelled_by: 'merchant', cancellation_reason: null } },
    });
    await sendTestEvent(runtime, merchantId, 'test', 'payment.created');
    await runtime.jobs.drain();
    for (const d of await deliveries()) await exhaust(d.id);
    assert.deepEqual(
      (await deliveries()).map((d) => d.status),
      ['failed', 'failed'],
    );
    receiver.respond = (_req, res) => res.writeHead(200).end();
    await assert.rejects(replaySince(runtime, merchantId, 'test', clock.now() + 1000), /future/);
    const seen = receiver.received.length;
    assert.equal(await replaySince(runtime, merchantId, 'test', t0), 1, 'the failed cancellation only');
    await runtime.jobs.drain();
    assert.equal(JSON.parse(receiver.received[seen]!.body).type, 'payment.cancelled');
    await updateEndpointSettings(runtime, merchantId, 'test', { eventTypes: ['payment.created', 'payment.cancelled'] });
    assert.equal(await replaySince(runtime, merchantId, 'test', t0), 1, 'the creation, now subscribed');
    await runtime.jobs.drain();
    assert.equal(JSON.parse(receiver.received.at(-1)!.body).data.payment_id, p.id);
    assert.equal(await replaySince(runtime, merchantId, 'test', t0), 0);
    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: false });
    await assert.rejects(replaySince(runtime, merchantId, 'test', t0), (err: ApiError) => err.code === 'invalid_state');
  });

  it('a test event of any type carries sample data with live = false, whatever the endpoint’s types', async () => {
    await updateEndpointSettings(runtime, merchantId, 'test', { eventTypes: ['payment.created'] });
    const sent: { delivery: DeliveryRow; event: { id: string; data: Record<string, unknown> } }[] = [];
    for (const type of ['payment.succeeded', 'payment.settled', 'payment.failed'] as const) {
      sent.push(await sendTestEvent(runtime, merchantId, 'test', type));
    }
    await runtime.jobs.drain();
    const events = receiver.received.map(
      (r) =>
        verifier().verify(r.body, r.headers) as {
          id: string;
          type: string;
          data: {
            payment_id: string;
            reference_id: string;
            live: boolean;
            status: string;
            payment_state_version: number;
            processing: unknown;
            settled: unknown;
          };
        },
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.data.live, e.data.status, e.data.payment_state_version]),
      [
        ['payment.succeeded', false, 'succeeded', 2],
        ['payment.settled', false, 'succeeded', 3],
        ['payment.failed', false, 'failed', 1],
      ],
    );
    events.forEach((e, i) => {
      const { delivery, event } = sent[i]!;
      assert.deepEqual(JSON.parse(receiver.received[i]!.body), event, 'the answer shows the exact body sent');
      assert.equal(delivery.trigger, 'test');
      assert.equal(delivery.payment_id, e.data.payment_id);
      assert.match(e.data.payment_id, /^pay_[0-9A-Za-z]{24}$/);
      assert.equal(e.data.reference_id, 'test_event');
    });
    assert.notEqual(events[0]!.data.processing, null);
    assert.notEqual(events[1]!.data.settled, null);
    assert.equal(events[2]!.data.processing, null, 'failed straight from requires_action');
    assert.equal(
      (await runtime.db.knex('payments').count({ n: '*' }))[0]!.n,
      0,
      'the sample payment id names no payment',
    );

    await updateEndpointSettings(runtime, merchantId, 'test', { enabled: false });
    await assert.rejects(
      sendTestEvent(runtime, merchantId, 'test', 'payment.created'),
      (err: ApiError) => err.code === 'invalid_state' && err.status === 409,
    );
    await assert.rejects(
      sendTestEvent(runtime, merchantId, 'live', 'payment.created'),
      (err: ApiError) => err.code === 'invalid_params' && err.status === 404,
    );
    // A test event to the live endpoint is a live delivery (the live key sees it), its payload still live = false.
    runtime.webhookOptions.resolve = async () => [{ address: '93.184.216.34', family: 4 }];
    await createEndpoint(runtime, merchantId, 'live', { url: 'https://hooks.example.com/x' });
    const live = await sendTestEvent(runtime, merchantId, 'live', 'payment.created');
    assert.equal(live.delivery.live, true);
    assert.equal(live.event.data.live, false);
  });

  it('refuses a live endpoint whose host resolves to loopback, and a second endpoint per mode', async () => {
    runtime.webhookOptions.resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    await assert.rejects(
      createEndpoint(runtime, merchantId, 'live', { url: 'https://hooks.example.com/x' }),
      /not publicly routable/,
    );
    await assert.rejects(createEndpoint(runtime, merchantId, 'live', { url: `${receiver.url}/hooks` }), /https/);
    await assert.rejects(
      createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/other` }),
      /already exists/,
    );
  });
});
