import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { assertAccessible, captureWidths } from '../helpers/browser.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { eventually } from '../helpers/wait.js';
import { expectJson } from '../gateway/harness.js';
import { startCheckoutPage, type CheckoutPageHarness } from '../checkout/page.js';
import type { CreatedTerminal, PosPayment } from './harness.js';

const SHOTS = join(process.cwd(), 'test-results', 'pos');

describe('pos.screen (the point-of-sale screen in Chromium)', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  let t: CreatedTerminal;
  const contexts: BrowserContext[] = [];
  before(async () => {
    h = await startCheckoutPage();
    const res = await fetch(`${h.server.url}/v1/dashboard/pos-terminals`, {
      method: 'POST',
      headers: {
        'Api-Key': h.account.testKey,
        'Merchant-Id': h.account.merchantId,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        name: 'Counter',
        currency: 'USD',
        catalogue: [
          { name: 'Espresso', unitAmount: '300' },
          { name: 'Croissant', unitAmount: '425' },
        ],
        tipPercents: [10, 15, 20],
      }),
    });
    t = await expectJson<CreatedTerminal>(res, 201);
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await h?.close();
  });

  /** The screen on a fresh device, unlocked with the terminal's key. */
  async function openScreen(width = 1280): Promise<{ page: Page; context: BrowserContext }> {
    const context = await h.browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${h.server.url}/pos/${t.terminal.id}`);
    await page.getByLabel('POS access key').fill(t.key);
    await page.getByRole('button', { name: 'Save on this device' }).click();
    await page.getByRole('group', { name: 'Keypad' }).waitFor();
    return { page, context };
  }

  /** Types minor units on the keypad, picks a tip, charges, and answers the sale the server created. */
  async function ring(page: Page, digits: string, tip: string | null, charge: string): Promise<PosPayment> {
    const keypad = page.getByRole('group', { name: 'Keypad' });
    for (const d of digits) await keypad.getByRole('button', { name: d, exact: true }).click();
    if (tip) await page.getByRole('group', { name: 'Tip' }).getByRole('button', { name: tip }).click();
    const created = page.waitForResponse(
      (r: Response) => r.request().method() === 'POST' && r.url().endsWith(`/pos/${t.terminal.id}/payments`),
    );
    await page.getByRole('button', { name: charge }).click();
    const sale = (await (await created).json()) as PosPayment;
    await page.getByRole('heading', { name: /^Scan to pay/ }).waitFor();
    return sale;
  }

  it('a keypad sale with a tip is paid by an EVM wallet from the QR code’s link, shows Paid, and the shop verifies the webhook', async () => {
    const { page } = await openScreen();
    await captureWidths(page, SHOTS, 'register');
    const sale = await ring(page, '1250', '10 %', 'Charge $13.75');
    assert.deepEqual(sale.amount, { unit: 'iso4217/USD', value: '1375' });
    assert.equal(sale.paymentLink, `${h.server.url}/pay/${sale.paymentId}`);
    await page.getByRole('img', { name: 'QR code: Checkout link' }).waitFor();
    await captureWidths(page, SHOTS, 'qr');
    // A counter tablet, upright: the QR code still fits the screen without scrolling sideways.
    await page.setViewportSize({ width: 800, height: 1100 });
    await assertAccessible(page, 'the QR code on a tablet');
    await page.screenshot({ path: join(SHOTS, 'qr-800.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The buyer's phone opens the link the QR code carries and pays from its wallet.
    const buyer = await h.buyer(100_000_000n);
    const wallet = await h.open(sale.paymentId, { evm: { buyer } });
    await h.view(wallet.page, 'open');
    await wallet.page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = wallet.page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 13\.75 TUSD/ }).click();
    await h.settleTo(sale.paymentId, 'succeeded');

    await page.getByRole('heading', { name: 'Paid' }).waitFor();
    await captureWidths(page, SHOTS, 'paid');
    await h.fulfilled(sale.paymentId);

    await page.getByRole('button', { name: 'New sale' }).click();
    await page.getByRole('group', { name: 'Keypad' }).waitFor();
    // The key stays on the device: a reload goes straight to the keypad.
    await page.reload();
    await page.getByRole('group', { name: 'Keypad' }).waitFor();
  });

  it('catalogue items ring up their prices, and a sale past its deadline shows Expired', async () => {
    const { page } = await openScreen(800);
    await page.getByRole('button', { name: 'Items' }).click();
    await page.getByRole('button', { name: /^Espresso/ }).click();
    await page.getByRole('button', { name: /^Espresso/ }).click();
    await page.getByRole('button', { name: /^Croissant/ }).click();
    await captureWidths(page, SHOTS, 'items');
    const created = page.waitForResponse((r: Response) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Charge $10.25' }).click();
    const sale = (await (await created).json()) as PosPayment;
    assert.equal(sale.amount.value, '1025');
    await page.getByRole('heading', { name: /^Scan to pay/ }).waitFor();
    h.clock.set(sale.expiresAt * 1000 + 60_000);
    await page.getByRole('heading', { name: 'Expired' }).waitFor();
    await captureWidths(page, SHOTS, 'expired');
  });

  it('offline, the screen says so and never shows Paid until the server answers again', async () => {
    const { page, context } = await openScreen(375);
    const sale = await ring(page, '500', null, 'Charge $5.00');
    let failedPolls = 0;
    page.on('requestfailed', (r) => {
      if (r.url().includes(`/payments/${sale.paymentId}`)) failedPolls += 1;
    });
    await context.setOffline(true);
    await page.getByRole('alert').filter({ hasText: 'Offline' }).waitFor();
    // Paid on the server while the screen cannot reach it.
    await h.simulate(sale.paymentId, 'processing', 'succeeded');
    await eventually('two status reads to fail offline', () => failedPolls >= 2);
    assert.equal(await page.getByRole('heading', { name: 'Paid' }).count(), 0, 'no Paid while offline');
    await page.getByText('Offline: the payment’s status is unknown').waitFor();
    await captureWidths(page, SHOTS, 'offline');
    await context.setOffline(false);
    await page.getByRole('heading', { name: 'Paid' }).waitFor();
    assert.equal(await page.getByRole('alert').filter({ hasText: 'Offline' }).count(), 0);
  });

  it('a revoked terminal’s screen asks for a key again', async () => {
    const { page } = await openScreen();
    const revoked = await fetch(`${h.server.url}/v1/dashboard/pos-terminals/${t.terminal.id}`, {
      method: 'DELETE',
      headers: { 'Api-Key': h.account.testKey, 'Merchant-Id': h.account.merchantId },
    });
    assert.equal(revoked.status, 200);
    await page.getByRole('button', { name: '5', exact: true }).click();
    await page.getByRole('button', { name: 'Charge $0.05' }).click();
    await page.getByText('This key was refused').waitFor();
    await captureWidths(page, SHOTS, 'key-refused');
  });
});
