/**
 * Issue 35 §2's first test, in the shipped app with Chromium and the local chain: a donation link (the buyer chooses
 * the amount) is opened by a buyer whose EIP-6963 wallet pays it, and the merchant's receiver verifies the
 * `payment.succeeded` webhook, which names the link (`data.link_id`) and carries the link's description.
 */
import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { expectJson } from '../helpers/responses.js';
import { startCheckoutPage, type CheckoutPageHarness } from '../checkout/page.js';

describe('links.donation.paid browser', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('a donation link paid by a wallet ends in a verified payment.succeeded that names the link', async () => {
    const created = await fetch(`${h.server.url}/v1/merchant/payment-links`, {
      method: 'POST',
      headers: {
        'Api-Key': h.account.testKey,
        'Merchant-Id': h.account.merchantId,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        currency: 'iso4217/USD',
        minAmount: '100',
        maxAmount: '100000',
        description: 'Support the community radio',
      }),
    });
    const link = await expectJson<{ id: string; url: string }>(created, 201);
    assert.equal(link.url, `${h.server.url}/l/${link.id}`);

    const buyer = await h.buyer(100_000_000n);
    // The wallet is installed in the browser context; the buyer then opens the link as a scanned QR code would.
    const { page } = await h.open('pay_none', { evm: { buyer } });
    await page.goto(link.url);
    await page.getByLabel('Amount (USD)').fill('12.50');
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/pay\/pay_[0-9A-Za-z]{24}$/);
    const paymentId = /\/pay\/(pay_[0-9A-Za-z]{24})$/.exec(page.url())![1]!;
    await h.view(page, 'open');
    assert.equal(await page.getByTestId('fiat-amount').textContent(), '$12.50');

    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    await h.fulfilled(paymentId);

    const succeeded = h.shop.deliveriesOf(paymentId).find((d) => d.event?.type === 'payment.succeeded')!;
    const data = succeeded.event!.data as { link_id?: unknown; description?: unknown; amount: unknown };
    assert.equal(data.link_id, link.id);
    assert.equal(data.description, 'Support the community radio');
    assert.deepEqual(data.amount, { unit: 'iso4217/USD', value: '1250' });
  });
});
