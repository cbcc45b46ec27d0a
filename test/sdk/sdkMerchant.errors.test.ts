import assert from 'node:assert/strict';
import { PaygateError, errorCodeValues, type ErrorCode } from '@paygate/sdk-merchant';
import { startSdkHarness, usd, type SdkHarness } from './helpers.js';

async function rejection(promise: Promise<unknown>): Promise<PaygateError> {
  const error = await promise.then(
    () => assert.fail('expected a PaygateError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof PaygateError, `expected a PaygateError, got ${String(error)}`);
  return error;
}

function expectError(error: PaygateError, status: number, code: ErrorCode): void {
  assert.deepEqual([error.status, error.code, error.rawCode], [status, code, code], error.message);
  assert.equal(error.name, 'PaygateError');
  assert.ok(error instanceof Error);
  assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/, 'the server’s X-Request-Id');
}

describe('sdkMerchant.errors', () => {
  let h: SdkHarness;
  before(async () => {
    h = await startSdkHarness();
  });
  after(() => h.close());

  it('an unknown API key is invalid_api_key (401), asked once', async () => {
    const from = h.proxy.log.length;
    const paygate = h.merchant({ apiKey: 'sk_test_notarealkeynotarealkeynotarealkey' });
    expectError(await rejection(paygate.getStatus('pay_unknown')), 401, 'invalid_api_key');
    assert.deepEqual(h.exchanges(from), ['GET /v1/merchant/payment/pay_unknown/status → 401']);
  });

  it('an unknown merchant is merchant_not_found (404)', async () => {
    const paygate = h.merchant({ merchantId: 'mer_doesnotexist' });
    expectError(await rejection(paygate.createPayment(usd())), 404, 'merchant_not_found');
  });

  it('an unknown payment is payment_not_found (404) for every operation that names one', async () => {
    const paygate = h.merchant();
    const id = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';
    const from = h.proxy.log.length;
    for (const call of [
      () => paygate.getStatus(id),
      () => paygate.getPayment(id),
      () => paygate.cancel(id),
      () => paygate.refund(id),
      () => paygate.simulate(id, 'processing'),
      () => paygate.waitForFinal(id),
    ]) {
      expectError(await rejection(call()), 404, 'payment_not_found');
    }
    expectError(
      await rejection(paygate.listPayments({ startingAfter: id })[Symbol.asyncIterator]().next()),
      404,
      'payment_not_found',
    );
    assert.equal(h.proxy.log.length - from, 7, 'a 4xx is never retried');
  });

  it('a request the contract refuses is params_validation (400)', async () => {
    const paygate = h.merchant();
    const error = await rejection(
      paygate.createPayment({ amount: { unit: 'iso4217/XXX', value: '100' }, referenceId: 'o' }),
    );
    expectError(error, 400, 'params_validation');
    assert.ok(error.message.length > 0);
  });

  it('state errors: invalid_state, payment_not_succeeded; a live key cannot simulate (forbidden)', async () => {
    const paygate = h.merchant();
    const { paymentId } = await paygate.createPayment(usd());
    expectError(await rejection(paygate.refund(paymentId)), 409, 'payment_not_succeeded');
    await paygate.simulate(paymentId, 'processing');
    expectError(await rejection(paygate.cancel(paymentId)), 409, 'invalid_state');
    expectError(await rejection(paygate.simulate(paymentId, 'processing')), 409, 'invalid_state');

    const live = h.merchant({ apiKey: h.account.liveKey });
    const { paymentId: liveId } = await live.createPayment(usd());
    expectError(await rejection(live.simulate(liveId, 'processing')), 403, 'forbidden');
  });

  it('an ErrorResponse naming the field at fault (param) is read like any other', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(
      { method: 'GET', path: /\/status$/ },
      {
        kind: 'respond',
        status: 400,
        body: { code: 'params_validation', message: 'id is too long.', param: 'id' },
        headers: { 'X-Request-Id': 'req-with-param' },
      },
    );
    const error = await rejection(paygate.getStatus('pay_any'));
    assert.deepEqual(
      [error.status, error.code, error.rawCode, error.message, error.requestId],
      [400, 'params_validation', 'params_validation', 'id is too long.', 'req-with-param'],
    );
  });

  it('a code this SDK does not know maps to internal_error and keeps the raw code', async () => {
    const paygate = h.merchant();
    h.proxy.failNext(
      { method: 'GET', path: /\/status$/ },
      {
        kind: 'respond',
        status: 409,
        body: { code: 'payment_on_hold', message: 'Held for review.' },
        headers: { 'X-Request-Id': 'req-from-the-future' },
      },
    );
    const error = await rejection(paygate.getStatus('pay_any'));
    assert.equal((errorCodeValues as readonly string[]).includes('payment_on_hold'), false);
    assert.deepEqual(
      [error.status, error.code, error.rawCode, error.message, error.requestId],
      [409, 'internal_error', 'payment_on_hold', 'Held for review.', 'req-from-the-future'],
    );
  });

  it('an answer that is not an ErrorResponse is internal_error with no raw code', async () => {
    const paygate = h.merchant({ retry: { retries: 0 } });
    const { paymentId } = await paygate.createPayment(usd());
    h.proxy.failNext({ method: 'GET', path: `/v1/merchant/payment/${paymentId}` }, { kind: 'fail-after-forward' });
    const error = await rejection(paygate.getPayment(paymentId));
    assert.deepEqual([error.status, error.code, error.rawCode, error.requestId], [502, 'internal_error', null, null]);
  });
});
