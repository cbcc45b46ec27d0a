import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';
import { createTerminal, posCall, type PosPayment } from './harness.js';

describeEachDatabase('pos.sale', (get) => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness({ db: get().db });
  });
  after(() => h?.close());

  it('getPosTerminal answers the terminal its key belongs to', async () => {
    const t = await createTerminal(h);
    assert.match(t.key, /^posk_test_[0-9A-Za-z]{32}$/);
    const read = await expectJson<Record<string, unknown>>(await posCall(h, t, 'GET', ''), 200);
    assert.equal(read.id, t.terminal.id);
    assert.equal(read.currency, 'iso4217/USD');
    assert.deepEqual(read.tipPercents, [10, 15, 20]);
    assert.deepEqual(
      (read.catalogue as { id: string }[]).map((i) => i.id),
      ['item_1', 'item_2'],
    );
  });

  it('createPosPayment takes a keypad amount with a tip rounded half up, in the terminal currency', async () => {
    const t = await createTerminal(h);
    // 1255 × 15 % = 188.25 → 188; 1250 × 15 % = 187.5 → 188 (halves up).
    const sale = await expectJson<PosPayment>(
      await posCall(h, t, 'POST', '/payments', { amount: '1255', tipPercent: 15 }),
      201,
    );
    assert.deepEqual(sale.amount, { unit: 'iso4217/USD', value: '1443' });
    assert.equal(sale.subtotal, '1255');
    assert.equal(sale.tip, '188');
    const half = await expectJson<PosPayment>(
      await posCall(h, t, 'POST', '/payments', { amount: '1250', tipPercent: 15 }),
      201,
    );
    assert.equal(half.tip, '188');
    const withTip = await expectJson<{ line_items: unknown[] }>(
      await h.call('GET', `/v1/merchant/payment/${sale.paymentId}`, {
        headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
      }),
      200,
    );
    assert.deepEqual(withTip.line_items, [
      { name: 'Amount', quantity: 1, unit_amount: '1255' },
      { name: 'Tip 15 %', quantity: 1, unit_amount: '188' },
    ]);
    assert.equal(sale.status, 'requires_action');
    assert.equal(sale.paymentLink, `${h.runtime.config.publicBaseUrl}/pay/${sale.paymentId}`);
    // The merchant sees it as its own payment.
    const merchantRead = await h.call('GET', `/v1/merchant/payment/${sale.paymentId}`, {
      headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
    });
    assert.equal(merchantRead.status, 200);
  });

  it('createPosPayment prices catalogue items and refuses unknown items, unknown tips, and amount with items', async () => {
    const t = await createTerminal(h);
    const sale = await expectJson<PosPayment>(
      await posCall(h, t, 'POST', '/payments', {
        items: [
          { itemId: 'item_1', quantity: 2 },
          { itemId: 'item_2', quantity: 1 },
        ],
      }),
      201,
    );
    assert.equal(sale.amount.value, '1025');
    assert.equal(sale.tip, '0');
    // What was sold travels with the payment (§30.1): its lines and a description naming the terminal.
    const merchantRead = await expectJson<{ description: string; line_items: unknown[] }>(
      await h.call('GET', `/v1/merchant/payment/${sale.paymentId}`, {
        headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
      }),
      200,
    );
    assert.equal(merchantRead.description, 'Point of sale: Counter');
    assert.deepEqual(merchantRead.line_items, [
      { name: 'Espresso', quantity: 2, unit_amount: '300' },
      { name: 'Croissant', quantity: 1, unit_amount: '425' },
    ]);
    const refused = [
      { items: [{ itemId: 'item_9', quantity: 1 }] },
      { amount: '100', tipPercent: 12 },
      { amount: '100', items: [{ itemId: 'item_1', quantity: 1 }] },
      {},
    ];
    for (const body of refused)
      await expectError(await posCall(h, t, 'POST', '/payments', body), 400, 'params_validation');
  });

  it('getPosPayment follows a sale to succeeded, and a sale past its deadline reads expired', async () => {
    const t = await createTerminal(h);
    const paid = await expectJson<PosPayment>(await posCall(h, t, 'POST', '/payments', { amount: '500' }), 201);
    await h.simulate(paid.paymentId, 'processing', 'succeeded');
    const read = await expectJson<PosPayment>(await posCall(h, t, 'GET', `/payments/${paid.paymentId}`), 200);
    assert.equal(read.status, 'succeeded');
    assert.equal(read.isFinal, true);
    const late = await expectJson<PosPayment>(await posCall(h, t, 'POST', '/payments', { amount: '500' }), 201);
    h.clock.set(late.expiresAt * 1000 + 60_000);
    const expired = await expectJson<PosPayment>(await posCall(h, t, 'GET', `/payments/${late.paymentId}`), 200);
    assert.equal(expired.status, 'expired');
  });

  it('a live terminal creates live payments; a test terminal test ones', async () => {
    const live = await createTerminal(h, {}, true);
    assert.match(live.key, /^posk_live_/);
    const sale = await expectJson<PosPayment>(await posCall(h, live, 'POST', '/payments', { amount: '500' }), 201);
    const asTest = await h.call('GET', `/v1/merchant/payment/${sale.paymentId}`, {
      headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
    });
    assert.equal(asTest.status, 404, 'invisible to the test key');
  });
});
