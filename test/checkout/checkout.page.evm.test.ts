import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { assertOnlyOwnOrigin, shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

describe('hosted checkout page: EVM wallets', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('pays a gasless EIP-3009 option from an EIP-6963 wallet, shows the receipt, and the shop gets payment.succeeded', async () => {
    const buyer = await h.buyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, evm, requests } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    assert.equal(await page.getByTestId('fiat-amount').textContent(), '$12.50');
    await h.accessible(page, 'the open payment');
    await h.capture(page, 'open');

    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.waitFor();
    assert.match((await option.textContent()) ?? '', /No gas needed/);
    await h.accessible(page, 'the options');
    await h.capture(page, 'options');

    await option.getByRole('button', { name: /^Pay 12\.5 TUSD/ }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    assert.equal(await page.getByTestId('paid-amount').textContent(), '12.5 TUSD');
    assert.ok(evm!.calls.includes('eth_signTypedData_v4'), 'the wallet signed the authorization');
    await h.accessible(page, 'the success view');
    await h.capture(page, 'succeeded');
    await h.fulfilled(paymentId);
    assertOnlyOwnOrigin(requests, h.server.url);

    // A buyer who comes back sees the receipt, and is not sent anywhere.
    await page.reload();
    await h.view(page, 'succeeded');
    await shows(page, 'Payment successful');
  });
});
