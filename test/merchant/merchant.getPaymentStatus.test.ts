import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { createPayment, expectError, expectJson, simulate, startHarness, usd, type Harness } from './harness.js';

const paths = {
  getPaymentStatus: (id: string) => `/v1/merchant/payment/${id}/status`,
  getPaymentStatusAlias: (id: string) => `/v1/payments/${id}/status`,
};

describe('merchant.getPaymentStatus', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  for (const [name, path] of Object.entries(paths)) {
    describe(name, () => {
      const status = (id: string) => h.call('GET', path(id));

      it('200: the merchant status, finality and polling hint of each state', async () => {
        const cases: [string[], { status: string; isFinal: boolean; pollInMs: number | null }][] = [
          [[], { status: 'pending', isFinal: false, pollInMs: 2000 }],
          [['processing'], { status: 'processing', isFinal: false, pollInMs: 2000 }],
          [['processing', 'succeeded'], { status: 'succeeded', isFinal: true, pollInMs: null }],
          [['processing', 'succeeded', 'settled'], { status: 'succeeded', isFinal: true, pollInMs: null }],
          [['failed'], { status: 'failed', isFinal: true, pollInMs: null }],
          // A cancellation reads `failed` here (docs/decisions.md §1.1).
          [['cancelled'], { status: 'failed', isFinal: true, pollInMs: null }],
          [['expired'], { status: 'expired', isFinal: true, pollInMs: null }],
        ];
        for (const [steps, expected] of cases) {
          const { paymentId } = await createPayment(h);
          await simulate(h, paymentId, ...steps);
          assert.deepEqual(await expectJson(await status(paymentId), 200), expected, steps.join('→'));
        }
      });

      it('a refunded payment still reads succeeded', async () => {
        const { paymentId } = await createPayment(h);
        await simulate(h, paymentId, 'processing', 'succeeded');
        await expectJson(await h.call('POST', `/v1/merchant/payment/${paymentId}/refund`), 200);
        assert.deepEqual(await expectJson(await status(paymentId), 200), {
          status: 'succeeded',
          isFinal: true,
          pollInMs: null,
        });
      });

      it('applies expiry on read, emitting payment.expired', async () => {
        const { paymentId } = await createPayment(h, { ...usd(), expiresAt: Math.floor(h.clock.now() / 1000) + 60 });
        h.clock.advance(60_000);
        assert.deepEqual(await expectJson(await status(paymentId), 200), {
          status: 'expired',
          isFinal: true,
          pollInMs: null,
        });
        const types = (await listEventsForPayment(h.runtime.db.knex, paymentId)).map((e) => e.type);
        assert.deepEqual(types, ['payment.created', 'payment.expired']);
      });

      it('404 payment_not_found, for a malformed id too; 400 for an id over 128 characters or an unknown query parameter', async () => {
        await expectError(await status('pay_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'payment_not_found');
        await expectError(await status('pay_!'), 404, 'payment_not_found');
        await expectError(await status('x'.repeat(129)), 400, 'params_validation');
        const { paymentId } = await createPayment(h);
        await expectError(await h.call('GET', `${path(paymentId)}?maxPollMs=10`), 400, 'invalid_params');
      });
    });
  }
});
