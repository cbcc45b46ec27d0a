/**
 * What the screen shows the buyer (docs/decisions.md §30.15): the checkout link always, Solana Pay when a Solana
 * chain can pay, and the deposit addresses' EIP-681 / Solana Pay transfer URIs only in collected settlement. On the
 * run's local chains.
 */
import assert from 'node:assert/strict';
import { startCheckoutHarness, type CheckoutHarness } from '../gateway/checkout.js';
import { expectJson } from '../gateway/harness.js';
import { createTerminal, posCall, type PosPayment } from './harness.js';

describe('pos.sale QR codes', () => {
  let h: CheckoutHarness;
  before(async () => {
    h = await startCheckoutHarness();
  });
  after(() => h?.close());

  it('a direct merchant: the checkout link and Solana Pay, no deposit URIs', async () => {
    const t = await createTerminal(h);
    const sale = await expectJson<PosPayment>(await posCall(h, t, 'POST', '/payments', { amount: '1250' }), 201);
    assert.equal(sale.paymentLink, `${h.runtime.config.publicBaseUrl}/pay/${sale.paymentId}`);
    assert.match(sale.solanaPayLink ?? '', /^solana:/);
    assert.deepEqual(sale.paymentUris, []);
  });

  it('a collected merchant: EIP-681 with the chain id, to the payment’s own deposit address', async () => {
    await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: 'collected' });
    const t = await createTerminal(h);
    const sale = await expectJson<PosPayment>(await posCall(h, t, 'POST', '/payments', { amount: '1250' }), 201);
    const evm = sale.paymentUris.find((u) => u.chain === 'eip155:31337');
    const address = (
      await h.runtime.db
        .knex('deposit_addresses')
        .where({ payment_id: sale.paymentId, chain_caip2: 'eip155:31337' })
        .first()
    ).address as string;
    assert.ok(evm, JSON.stringify(sale.paymentUris));
    assert.match(evm.uri, new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@31337/transfer\\?address=${address}&uint256=\\d+$`));
    assert.match(evm.label, /^TUSD on \S/);
    // Once the sale is final the screen needs no code to scan.
    await h.simulate(sale.paymentId, 'cancelled');
    const read = await expectJson<PosPayment>(await posCall(h, t, 'GET', `/payments/${sale.paymentId}`), 200);
    assert.deepEqual([read.status, read.paymentUris, read.solanaPayLink], ['cancelled', [], null]);
  });
});
