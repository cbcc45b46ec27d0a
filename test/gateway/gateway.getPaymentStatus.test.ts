import assert from 'node:assert/strict';
import { transitionPayment } from '../../server/src/payments/lifecycle.js';
import {
  expectError,
  expectJson,
  startGatewayHarness,
  unknownPayment,
  type GatewayHarness,
  type StatusAnswer,
} from './harness.js';
import { eventually } from '../helpers/wait.js';

describe('gateway.getPaymentStatus', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness();
  });
  after(() => h.close());

  const status = (id: string, query = '', o: { signal?: AbortSignal; headers?: Record<string, string | null> } = {}) =>
    h.call('GET', `/v1/gateway/payment/${id}/status${query}`, o);
  const timed = async <T>(work: Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = performance.now();
    const value = await work;
    return { value, ms: performance.now() - started };
  };
  /** Resolves once `n` long polls wait on this runtime's notifier: the poll under test has begun its wait. */
  const pollsWaiting = (n = 1) => eventually(`${n} long poll(s) waiting`, () => h.runtime.paymentNotifier.waiting >= n);
  const cancelWhenWaiting = (id: string, deps = h.runtime) =>
    pollsWaiting().then(() =>
      transitionPayment(deps, id, {
        to: 'cancelled',
        from: ['requires_action'],
        stages: {
          cancelled: {
            cancelled_at: new Date(h.clock.now()).toISOString(),
            cancelled_by: 'system',
            cancellation_reason: null,
          },
        },
      }),
    );

  it('200 at once without maxPollMs: requires_action is not final and says when to poll', async () => {
    const id = await h.createPayment();
    assert.deepEqual(await expectJson(await status(id), 200), {
      status: 'requires_action',
      isFinal: false,
      pollInMs: 2000,
      failureCode: null,
      info: null,
    });
    const { value } = await timed(status(id, '?maxPollMs=0'));
    assert.equal((await expectJson<StatusAnswer>(value, 200)).status, 'requires_action');
  });

  it('200 processing, failed and cancelled carry no info; final ones no pollInMs', async () => {
    for (const [steps, isFinal] of [
      [['processing'], false],
      [['failed'], true],
      [['cancelled'], true],
    ] as const) {
      const id = await h.createPayment();
      await h.simulate(id, ...steps);
      assert.deepEqual(await expectJson(await status(id), 200), {
        status: steps.at(-1),
        isFinal,
        pollInMs: isFinal ? null : 2000,
        failureCode: null,
        info: null,
      });
    }
  });

  it('200 succeeded: info holds the transaction, the amount paid with its display, and when it succeeded', async () => {
    const id = await h.createPayment();
    await h.simulate(id, 'processing');
    h.clock.advance(42_000);
    await h.simulate(id, 'succeeded');
    assert.deepEqual(await expectJson(await status(id), 200), {
      status: 'succeeded',
      isFinal: true,
      pollInMs: null,
      failureCode: null,
      info: {
        txId: `test:${id}`,
        paidAt: Math.floor(h.clock.now() / 1000),
        optionAmount: {
          unit: 'caip19/eip155:31337/erc20:0x0000000000000000000000000000000000000000',
          value: '12500000',
          display: {
            assetSymbol: 'TEST',
            assetName: 'Simulated test token',
            decimals: 6,
            iconUrl: null,
            networkIconUrl: null,
            networkName: 'Simulated chain',
          },
        },
      },
    });
  });

  it('200 expired: expiry applies on read', async () => {
    const id = await h.createPayment({ expiresInSeconds: 60 });
    h.clock.advance(60_000);
    assert.equal((await expectJson<StatusAnswer>(await status(id), 200)).status, 'expired');
  });

  describe('long polling (wall time)', () => {
    it('a final status answers at once, whatever maxPollMs', async () => {
      const id = await h.createPayment();
      await h.simulate(id, 'failed');
      const { value, ms } = await timed(status(id, '?maxPollMs=25000'));
      assert.equal((await expectJson<StatusAnswer>(value, 200)).status, 'failed');
      assert.ok(ms < 500, `answered after ${ms} ms`);
    });

    it('a change to a final status during the wait answers it before maxPollMs', async () => {
      const id = await h.createPayment();
      const [{ value, ms }] = await Promise.all([timed(status(id, '?maxPollMs=20000')), cancelWhenWaiting(id)]);
      assert.deepEqual(await expectJson(value, 200), {
        status: 'cancelled',
        isFinal: true,
        pollInMs: null,
        failureCode: null,
        info: null,
      });
      assert.ok(ms < 10_000, `answered after ${ms} ms, woken by the change and not by maxPollMs`);
    });

    it('a change made by another process (no in-process notice) is seen by the periodic re-read', async () => {
      const id = await h.createPayment();
      // Lifecycle deps without the runtime's hooks: what a worker process changing the row looks like from here.
      const elsewhere = { ...h.runtime, eventHooks: [] };
      const [{ value, ms }] = await Promise.all([
        timed(status(id, '?maxPollMs=20000')),
        cancelWhenWaiting(id, elsewhere),
      ]);
      assert.equal((await expectJson<StatusAnswer>(value, 200)).status, 'cancelled');
      assert.ok(ms < 10_000, `answered after ${ms} ms, by the re-read and not by maxPollMs`);
    });

    it('a change to a status that is not final keeps the wait going until maxPollMs', async () => {
      const id = await h.createPayment();
      const [{ value, ms }] = await Promise.all([
        timed(status(id, '?maxPollMs=1500')),
        pollsWaiting().then(() => h.simulate(id, 'processing')),
      ]);
      assert.deepEqual(await expectJson(value, 200), {
        status: 'processing',
        isFinal: false,
        pollInMs: 2000,
        failureCode: null,
        info: null,
      });
      assert.ok(ms >= 1450, `answered after ${ms} ms`);
    });

    it('maxPollMs passing answers the current status', async () => {
      const id = await h.createPayment();
      const { value, ms } = await timed(status(id, '?maxPollMs=300'));
      assert.equal((await expectJson<StatusAnswer>(value, 200)).status, 'requires_action');
      assert.ok(ms >= 280 && ms < 1000, `answered after ${ms} ms`);
    });

    it('expiresAt passing during the wait ends it as expired', async () => {
      const id = await h.createPayment({ expiresInSeconds: 60 });
      const [{ value, ms }] = await Promise.all([
        timed(status(id, '?maxPollMs=20000')),
        pollsWaiting().then(() => h.clock.advance(60_000)),
      ]);
      assert.equal((await expectJson<StatusAnswer>(value, 200)).status, 'expired');
      assert.ok(ms < 10_000, `answered after ${ms} ms, at expiry and not at maxPollMs`);
    });

    it('stops waiting when the client disconnects', async () => {
      const id = await h.createPayment();
      const notifier = h.runtime.paymentNotifier;
      const abort = new AbortController();
      const pending = status(id, '?maxPollMs=5000', { signal: abort.signal }).catch((err: Error) => err);
      await pollsWaiting();
      assert.equal(notifier.waiting, 1);
      abort.abort();
      assert.equal(((await pending) as Error).name, 'AbortError');
      await eventually('the aborted poll to stop waiting', () => notifier.waiting === 0);
    });
  });

  it('400 params_validation for maxPollMs outside 0–25000 or not an integer', async () => {
    const id = await h.createPayment();
    for (const query of ['?maxPollMs=25001', '?maxPollMs=-1', '?maxPollMs=soon', '?maxPollMs=1.5']) {
      await expectError(await status(id, query), 400, 'params_validation');
    }
  });

  it('400 params_validation for a payment id over 128 characters; invalid_params for an unknown query parameter', async () => {
    await expectError(await status('x'.repeat(129)), 400, 'params_validation');
    const id = await h.createPayment();
    await expectError(await status(id, '?pollMs=10'), 400, 'invalid_params');
  });

  it('403 forbidden for a payment of the other mode', async () => {
    const live = await h.createPayment({ live: true });
    await expectError(await status(live, '?maxPollMs=1000'), 403, 'forbidden');
  });

  it('404 payment_not_found for an unknown id, malformed or not', async () => {
    await expectError(await status(unknownPayment, '?maxPollMs=1000'), 404, 'payment_not_found');
    await expectError(await status('pay_!', '?maxPollMs=1000'), 404, 'payment_not_found');
  });

  it('500 internal_error with a generic message when storage fails', async () => {
    const id = await h.createPayment();
    await h.runtime.db.knex.schema.renameTable('payments', 'payments_unavailable');
    try {
      assert.equal(await expectError(await status(id), 500, 'internal_error'), 'An internal error occurred.');
    } finally {
      await h.runtime.db.knex.schema.renameTable('payments_unavailable', 'payments');
    }
  });
});
