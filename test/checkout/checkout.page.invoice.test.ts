/**
 * An invoice's public page (web/invoice.html, docs/decisions.md §30.11) in a real Chromium over the local chain: the
 * buyer pays part of it from an EIP-6963 wallet through the hosted checkout, comes back to a partially paid invoice,
 * pays the rest, and the shop verifies each payment's webhook. axe and screenshots at 1280 and 375 px, and the print
 * stylesheet (the Pay form gone, the invoice alone) under emulated print media.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { useChainSnapshots } from '../helpers/chain.js';
import { eventually } from '../helpers/wait.js';
import { SHOTS_DIR, shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

interface Created {
  invoiceId: string;
  url: string;
}

describe('hosted checkout page: an invoice paid in two payments', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  async function createInvoice(): Promise<Created> {
    const res = await fetch(`${h.server.url}/v1/merchant/invoices`, {
      method: 'POST',
      headers: {
        'Api-Key': h.account.testKey,
        'Merchant-Id': h.account.merchantId,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        currency: 'iso4217/USD',
        lineItems: [
          { name: 'Logo design', quantity: 2, unitAmount: '500' },
          { name: 'Business cards', quantity: 1, unitAmount: '1000' },
        ],
        dueAt: Math.floor(h.clock.now() / 1000) + 7 * 86_400,
        buyer: { name: 'Ada Lovelace', email: 'ada@example.com' },
        notes: 'Thank you for your business.\nPayable within 7 days.',
      }),
    });
    assert.equal(res.status, 201);
    return (await res.json()) as Created;
  }

  /** From the invoice page: pay `amount` (whole units as typed) through the checkout until the shop has it. */
  async function payFromInvoice(page: Page, invoiceUrl: string, amount: string, tusd: RegExp): Promise<string> {
    await page.goto(invoiceUrl);
    const field = page.getByLabel(/Amount to pay now/);
    await field.fill(amount);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.waitForURL(/\/pay\/pay_/);
    const paymentId = new URL(page.url()).pathname.split('/')[2]!;
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: tusd }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    await h.fulfilled(paymentId);
    return paymentId;
  }

  it('open, partially paid after the first payment, paid after the second; each payment verified by the shop', async () => {
    const invoice = await createInvoice();
    assert.equal(invoice.url, `${h.server.url}/i/${invoice.invoiceId}`);
    const buyer = await h.buyer(100_000_000n);
    // Any checkout URL installs the wallet in the context; the invoice page is where the buyer starts.
    const { page, requests } = await h.open('pay_none', { evm: { buyer } });
    await page.goto(invoice.url);
    await page.getByRole('heading', { name: /^Invoice INV-0001$/ }).waitFor();
    await shows(page, 'Open');
    // The one amount rule of every page (§26.3): "$20.00", as the dashboard shows it, not "USD 20.00".
    await shows(page, '$20.00');
    assert.equal(await page.getByText('USD 20.00').count(), 0);
    await shows(page, 'Ada Lovelace · ada@example.com');
    await h.capture(page, 'invoice-open');

    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.getByRole('button', { name: 'Pay', exact: true }).isVisible(), false);
    assert.equal(await page.getByRole('heading', { name: /^Invoice INV-0001$/ }).isVisible(), true);
    await page.screenshot({ path: join(SHOTS_DIR, 'invoice-print.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });

    const first = await payFromInvoice(page, invoice.url, '8', /^Pay 8(\.00)? TUSD/);
    await page.goto(invoice.url);
    await shows(page, 'Partially paid');
    await shows(page, '$12.00');
    assert.equal(await page.getByLabel(/Amount to pay now/).inputValue(), '12.00');
    await h.capture(page, 'invoice-partially-paid');

    const second = await payFromInvoice(page, invoice.url, '12.00', /^Pay 12(\.00)? TUSD/);
    assert.notEqual(first, second);
    await page.goto(invoice.url);
    await shows(page, 'This invoice is paid. Thank you.');
    assert.equal(await page.getByRole('button', { name: 'Pay', exact: true }).count(), 0);
    await h.capture(page, 'invoice-paid');

    await eventually('the merchant API to show the invoice paid', async () => {
      const res = await fetch(`${h.server.url}/v1/merchant/invoices/${invoice.invoiceId}`, {
        headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
      });
      const body = (await res.json()) as { status: string; amountPaid: { value: string } };
      return body.status === 'paid' && body.amountPaid.value === '2000';
    });
    const foreign = requests.filter((url) => !url.startsWith(`${h.server.url}/`) && !url.startsWith('data:'));
    assert.deepEqual(foreign, [], 'the pages requested another origin');
  });

  it('an unknown invoice says it is not available', async () => {
    const { page } = await h.open('pay_none');
    await page.goto(`${h.server.url}/i/in_AAAAAAAAAAAAAAAAAAAAAAAA`);
    await shows(page, 'Invoice not available');
    await h.accessible(page, 'the unknown invoice');
  });
});
