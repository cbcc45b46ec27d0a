import assert from 'node:assert/strict';
import { PaygateError, errorCodeValues, type ErrorCode } from '@paygate/sdk-wallet';
import { startWalletHarness, type WalletHarness } from './walletHelpers.js';

/** Well-formed (so it passes the contract's pattern) and naming no payment. */
const UNKNOWN_ID = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';

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
  assert.ok(error.message.length > 0);
  assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/, 'the server’s X-Request-Id');
}

describe('sdkWallet.errors', () => {
  let h: WalletHarness;
  before(async () => {
    h = await startWalletHarness();
  });
  after(() => h.close());

  it('an unknown payment is payment_not_found (404) for every operation that names one, asked once each', async () => {
    const wallet = h.wallet();
    const from = h.proxy.log.length;
    for (const call of [
      () => wallet.getPayment(UNKNOWN_ID),
      () => wallet.getPaymentStatus(UNKNOWN_ID),
      () => wallet.getPaymentStatus(UNKNOWN_ID, { maxPollMs: 1000 }),
      () => wallet.cancelPayment(UNKNOWN_ID),
      () => wallet.waitForFinal(UNKNOWN_ID),
    ]) {
      expectError(await rejection(call()), 404, 'payment_not_found');
    }
    assert.equal(h.proxy.log.length - from, 5, 'a 4xx is never retried');
    assert.deepEqual(h.sleeps.length, 0);
  });

  it('an unknown wallet key is invalid_api_key (401); an unknown app id invalid_app_id (401)', async () => {
    const { paymentId } = await h.createPayment();
    expectError(
      await rejection(h.wallet({ apiKey: `wk_test_${'A'.repeat(32)}` }).getPayment(paymentId)),
      401,
      'invalid_api_key',
    );
    const app = h.wallet({ apiKey: undefined, appId: `app_test_${'A'.repeat(24)}`, clientId: 'install-1' });
    expectError(await rejection(app.getPaymentStatus(paymentId)), 401, 'invalid_app_id');
  });

  it('a credential of the other mode is forbidden (403), in both auth modes', async () => {
    const { paymentId: live } = await h.createPayment({ live: true });
    expectError(await rejection(h.wallet().getPayment(live)), 403, 'forbidden');
    const app = h.wallet({ apiKey: undefined, appId: h.credentials.testApp, clientId: 'install-1' });
    expectError(await rejection(app.cancelPayment(live)), 403, 'forbidden');
    // The live credential may act on it.
    assert.equal((await h.wallet({ apiKey: h.credentials.liveKey }).getPayment(live)).status, 'requires_action');
  });

  it('version refusals: invalid_api_version (400)', async () => {
    const { paymentId } = await h.createPayment();
    expectError(
      await rejection(h.wallet({ svcVersion: '2026-02-30' }).getPayment(paymentId)),
      400,
      'invalid_api_version',
    );
  });

  it('a request the contract refuses is params_validation (400): maxPollMs out of range, an id over 128 characters', async () => {
    const { paymentId } = await h.createPayment();
    expectError(
      await rejection(h.wallet().getPaymentStatus(paymentId, { maxPollMs: 25_001 })),
      400,
      'params_validation',
    );
    expectError(await rejection(h.wallet().getPayment('x'.repeat(129))), 400, 'params_validation');
    // A malformed id is just an unknown one (docs/decisions.md §4).
    expectError(await rejection(h.wallet().getPayment('pay_short')), 404, 'payment_not_found');
  });

  it('a code this SDK does not know maps to internal_error and keeps the raw code', async () => {
    h.proxy.failNext(
      { method: 'GET', path: /\/status$/ },
      {
        kind: 'respond',
        status: 409,
        body: { code: 'payment_on_hold', message: 'Held for review.' },
        headers: { 'X-Request-Id': 'req-from-the-future' },
      },
    );
    const error = await rejection(h.wallet().getPaymentStatus(UNKNOWN_ID));
    assert.equal((errorCodeValues as readonly string[]).includes('payment_on_hold'), false);
    assert.deepEqual(
      [error.status, error.code, error.rawCode, error.message, error.requestId],
      [409, 'internal_error', 'payment_on_hold', 'Held for review.', 'req-from-the-future'],
    );
  });

  it('an answer that is not an ErrorResponse is internal_error with no raw code', async () => {
    const { paymentId } = await h.createPayment();
    h.proxy.failNext({ method: 'GET', path: `/v1/gateway/payment/${paymentId}` }, { kind: 'fail-after-forward' });
    const error = await rejection(h.wallet({ retry: { retries: 0 } }).getPayment(paymentId));
    assert.deepEqual([error.status, error.code, error.rawCode, error.requestId], [502, 'internal_error', null, null]);
  });
});
