import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { createPayment, expectError, expectJson, startHarness, usd, type Created, type Harness } from './harness.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

describe('merchant.createPayment', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const post = (body: unknown) => h.call('POST', '/v1/merchant/payment', { body });
  const refused = async (body: unknown, pattern?: RegExp) => {
    const message = await expectError(await post(body), 400, 'params_validation');
    if (pattern) assert.match(message, pattern);
  };
  const stored = async (paymentId: string) => (await findPayment(h.runtime.db.knex, paymentId))!;

  describe('201', () => {
    it('creates a pending test payment, with its payment.created event at version 0', async () => {
      const res = await post(usd());
      const body = await expectJson<Created>(res, 201);
      assert.equal(res.headers.get('idempotent-replayed'), null);
      assert.match(body.paymentId, /^pay_[0-9A-Za-z]{24}$/);
      assert.deepEqual(body, {
        paymentId: body.paymentId,
        gatewayUrl: `${h.runtime.config.publicBaseUrl}/pay/${body.paymentId}`,
        status: 'pending',
        expiresAt: (h.clock.now() + 30 * MINUTE) / SECOND,
        isFinal: false,
        pollInMs: 2000,
      });
      const row = await stored(body.paymentId);
      assert.equal(row.status, 'requires_action');
      assert.equal(row.live, false);
      assert.equal(row.merchant_id, h.account.merchantId);
      assert.equal(row.amount_unit, 'iso4217/USD');
      assert.equal(row.amount_value, '1250');
      const events = await listEventsForPayment(h.runtime.db.knex, body.paymentId);
      assert.deepEqual(
        events.map((e) => [e.type, e.state_version]),
        [['payment.created', 0]],
      );
      assert.equal(JSON.parse(events[0]!.payload).data.payment_id, body.paymentId);
    });

    it('rounds the default 30-minute window up to a whole second, so expiresAt and expires_at agree', async () => {
      h.clock.advance(400);
      try {
        const { paymentId, expiresAt } = await createPayment(h);
        assert.equal((await stored(paymentId)).expires_at, expiresAt * SECOND);
        assert.ok(expiresAt * SECOND >= h.clock.now() + 30 * MINUTE);
      } finally {
        h.clock.advance(-400);
      }
    });

    it('a live key creates a live payment', async () => {
      const { paymentId } = await createPayment(h, usd(), { live: true });
      assert.equal((await stored(paymentId)).live, true);
    });
  });

  describe('currencies come from the ISO 4217 dataset', () => {
    it('a zero-decimal currency is given in whole units (JPY 1500 is ¥1,500)', async () => {
      const { paymentId } = await createPayment(h, {
        amount: { unit: 'iso4217/JPY', value: '1500' },
        referenceId: 'jp',
      });
      const row = await stored(paymentId);
      assert.deepEqual([row.amount_unit, row.amount_value], ['iso4217/JPY', '1500']);
    });

    it('accepts active currencies of every minor unit', async () => {
      for (const unit of ['iso4217/EUR', 'iso4217/KWD', 'iso4217/CLF', 'iso4217/XOF', 'iso4217/VES']) {
        await createPayment(h, { amount: { unit, value: '100' }, referenceId: unit });
      }
    });

    it('refuses a code that is not an active currency: unknown, withdrawn, or not money', async () => {
      // XYZ was never assigned, HRK was withdrawn in 2023, XAU (gold) and XTS (testing) have no minor unit.
      for (const code of ['XYZ', 'HRK', 'XAU', 'XTS', 'XXX']) {
        await refused({ amount: { unit: `iso4217/${code}`, value: '100' }, referenceId: 'r' }, new RegExp(code));
      }
    });

    it('refuses a unit that is not iso4217/<CODE>', async () => {
      for (const unit of ['iso4217/usd', 'USD', 'caip19/eip155:1/slip44:60', 'iso4217/USDT']) {
        await refused({ amount: { unit, value: '100' }, referenceId: 'r' }, /amount\.unit/);
      }
    });
  });

  describe('400 params_validation', () => {
    it('value is a positive decimal integer string of 1 to 15 digits', async () => {
      for (const value of ['0', '012', '-5', '1.5', '1e3', ' 12', '1234567890123456', '']) {
        await refused({ amount: { unit: 'iso4217/USD', value }, referenceId: 'r' }, /amount\.value/);
      }
      await refused({ amount: { unit: 'iso4217/USD', value: 1250 }, referenceId: 'r' }, /amount\.value/);
      await createPayment(h, { amount: { unit: 'iso4217/USD', value: '999999999999999' }, referenceId: 'max' });
      await createPayment(h, { amount: { unit: 'iso4217/USD', value: '1' }, referenceId: 'min' });
    });

    it('referenceId is 1 to 255 characters without control characters', async () => {
      await refused({ amount: usd().amount }, /referenceId/);
      for (const referenceId of ['', 'x'.repeat(256), 'a\nb', 'a\u0000b', 'a\u007fb']) {
        await refused({ amount: usd().amount, referenceId }, /referenceId/);
      }
      await createPayment(h, { amount: usd().amount, referenceId: 'x'.repeat(255) });
      await createPayment(h, { amount: usd().amount, referenceId: 'Commande n° 42 — 日本' });
    });

    it('expiresAt is between 60 seconds and 7 days from now', async () => {
      const at = (ms: number) => ({ ...usd(), expiresAt: Math.floor((h.clock.now() + ms) / SECOND) });
      for (const ms of [-MINUTE, 0, 59 * SECOND, 7 * DAY + SECOND, 365 * DAY]) {
        await refused(at(ms), /expiresAt/);
      }
      await refused({ ...usd(), expiresAt: -1 }, /expiresAt/);
      await refused({ ...usd(), expiresAt: 1.5 }, /expiresAt/);
      for (const ms of [60 * SECOND, 7 * DAY, 2 * 60 * MINUTE]) {
        const body = at(ms);
        const created = await createPayment(h, body);
        assert.equal(created.expiresAt, body.expiresAt);
        assert.equal((await stored(created.paymentId)).expires_at, body.expiresAt * SECOND);
      }
    });

    it('unknown and missing fields are refused', async () => {
      await refused({ ...usd(), referenceID: 'typo' }, /additional/);
      await refused({ referenceId: 'r' }, /amount/);
      await refused({ ...usd(), amount: { unit: 'iso4217/USD', value: '1', extra: 1 } });
      await refused({ ...usd(), checkout: { successUrl: 'https://a.example', cancelUrl: 'https://b.example' } });
    });

    it('a checkout URL over 2048 characters is refused', async () => {
      const long = `https://shop.example.com/${'a'.repeat(2030)}`;
      await refused(
        { ...usd(), checkout: { successUrl: long, errorUrl: 'https://shop.example.com/e' } },
        /successUrl|2048/,
      );
    });
  });

  describe('checkout redirect: both https URLs, or disabled (never refused)', () => {
    const ok = 'https://shop.example.com/orders/1/thanks';
    const err = 'https://shop.example.com/orders/1/failed';
    const urlsOf = async (checkout: unknown) => {
      const row = await stored((await createPayment(h, { ...usd(), checkout })).paymentId);
      return [row.success_url, row.error_url];
    };

    it('keeps both when both are valid https URLs', async () => {
      assert.deepEqual(await urlsOf({ successUrl: ok, errorUrl: err }), [ok, err]);
    });

    it('disables the redirect when either is missing or not a valid https URL', async () => {
      const cases: unknown[] = [
        {},
        { successUrl: ok },
        { errorUrl: err },
        { successUrl: ok, errorUrl: 'http://shop.example.com/failed' },
        { successUrl: '/relative/path', errorUrl: err },
        { successUrl: ok, errorUrl: 'not a url' },
        { successUrl: 'javascript:alert(1)', errorUrl: err },
        { successUrl: 'https://', errorUrl: err },
        { successUrl: '', errorUrl: err },
      ];
      for (const checkout of cases) assert.deepEqual(await urlsOf(checkout), [null, null], JSON.stringify(checkout));
    });

    it('disables it when there is no checkout object at all', async () => {
      const row = await stored((await createPayment(h)).paymentId);
      assert.deepEqual([row.success_url, row.error_url], [null, null]);
    });
  });

  describe('unreadable requests', () => {
    it('malformed JSON and a body that is not an object are 400 invalid_params', async () => {
      await expectError(await h.call('POST', '/v1/merchant/payment', { raw: '{"amount":' }), 400, 'invalid_params');
      await expectError(await h.call('POST', '/v1/merchant/payment', { raw: '[]' }), 400, 'invalid_params');
      await expectError(await h.call('POST', '/v1/merchant/payment', { raw: '"text"' }), 400, 'invalid_params');
    });

    it('a body over 256 KiB is 413 invalid_params', async () => {
      const raw = JSON.stringify({ ...usd(), referenceId: 'x'.repeat(300 * 1024) });
      await expectError(await h.call('POST', '/v1/merchant/payment', { raw }), 413, 'invalid_params');
    });

    it('a body of another content type is 415 invalid_params', async () => {
      const res = await h.call('POST', '/v1/merchant/payment', {
        raw: JSON.stringify(usd()),
        headers: { 'Content-Type': 'text/plain' },
      });
      await expectError(res, 415, 'invalid_params');
    });
  });
});
