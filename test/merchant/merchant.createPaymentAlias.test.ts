import assert from 'node:assert/strict';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { expectError, expectJson, startHarness, type Harness } from './harness.js';

interface Created {
  paymentId: string;
  gatewayUrl: string;
  status: string;
  expiresAt: number;
  isFinal: boolean;
  pollInMs: number;
}

/** WalletConnect Pay's merchant paths that Paygate serves as aliases (docs/decisions.md §28). */
describe('merchant.createPaymentAlias: POST /v1/payments, and GET /v1/merchants/payments', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  /** WalletConnect Pay's CreatePayment body, as its docs show it. */
  const wcpBody = (referenceId: string) => ({ amount: { unit: 'iso4217/USD', value: '1000' }, referenceId });

  it('201 with WalletConnect Pay’s body and answer: the payment is created as createPayment creates it', async () => {
    const created = await expectJson<Created>(await h.call('POST', '/v1/payments', { body: wcpBody('wcp-1') }), 201);
    assert.equal(created.status, 'requires_action');
    assert.equal(created.isFinal, false);
    assert.equal(created.pollInMs, 2000);
    assert.match(created.gatewayUrl, new RegExp(`${created.paymentId}$`));
    const row = (await findPayment(h.runtime.db.knex, created.paymentId))!;
    assert.equal(row.reference_id, 'wcp-1');
    assert.equal(row.status, 'requires_action');
    assert.equal(row.live, false);
  });

  it('one Idempotency-Key record with createPayment: a replay on either path is the same payment', async () => {
    const headers = { 'Idempotency-Key': 'wcp-alias-key-1' };
    const first = await h.call('POST', '/v1/payments', { body: wcpBody('wcp-2'), headers });
    const created = await expectJson<Created>(first, 201);
    const again = await h.call('POST', '/v1/payments', { body: wcpBody('wcp-2'), headers });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await expectJson<Created>(again, 201), created);
    const canonical = await h.call('POST', '/v1/merchant/payment', { body: wcpBody('wcp-2'), headers });
    const native = await expectJson<Created>(canonical, 201);
    assert.deepEqual({ ...native, status: 'requires_action' }, created);
    assert.equal(native.status, 'pending');
    await expectError(
      await h.call('POST', '/v1/payments', { body: wcpBody('wcp-other'), headers }),
      409,
      'idempotency_conflict',
    );
  });

  it('refuses what createPayment refuses, and needs the merchant key', async () => {
    await expectError(
      await h.call('POST', '/v1/payments', { body: { amount: { unit: 'iso4217/USD', value: '0' }, referenceId: 'x' } }),
      400,
      'params_validation',
    );
    await expectError(
      await h.call('POST', '/v1/payments', { body: wcpBody('x'), headers: { 'Api-Key': null } }),
      401,
      'missing_merchant_api_key',
    );
  });

  it('GET /v1/merchants/payments answers GET /v1/payments', async () => {
    for (const query of ['', '?limit=1', '?referenceId=wcp-2', '?sortBy=date&sortDir=desc']) {
      assert.deepEqual(
        await expectJson(await h.call('GET', `/v1/merchants/payments${query}`), 200),
        await expectJson(await h.call('GET', `/v1/payments${query}`), 200),
      );
    }
  });
});
