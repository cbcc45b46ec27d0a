/**
 * Issue 35 §1 in the shipped app (decisions.md §30.1, §30.4): the payment page shows what was sold (description, lines
 * with their totals, the buyer, the metadata), and the payments list's search finds the payment by a word of it.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { expectJson } from './harness.js';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.paymentDetail.sold [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  const rowIds = (page: Page) =>
    page.locator('tr[data-payment]').evaluateAll((r) => r.map((e) => e.getAttribute('data-payment')!));

  it('shows the description, the lines, the buyer and the metadata, and the list search finds the payment by a word', async () => {
    const m = await s.d.merchant();
    const other = await m.createPayment();
    const body = {
      amount: { unit: 'iso4217/USD', value: '1450' },
      referenceId: 'order_sold_1',
      description: 'Table 4\nTwo flat whites and a croissant',
      lineItems: [
        { name: 'Flat white', quantity: 2, unitAmount: '500' },
        { name: 'Croissant', quantity: 1, unitAmount: '450' },
      ],
      buyer: { email: 'ada@example.com', name: 'Ada Lovelace' },
      metadata: { order_id: 'ORD-10482', channel: 'counter' },
    };
    const { paymentId } = await expectJson<{ paymentId: string }>(
      await m.call('POST', '/v1/merchant/payment', { body }),
      201,
    );

    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    const sold = page.getByRole('region', { name: 'What was sold' });
    await sold.waitFor();
    assert.equal(await sold.getByTestId('payment-description').innerText(), body.description);
    const lines = sold.getByRole('table', { name: 'Line items' });
    assert.match(
      (await lines.getByRole('row', { name: /Flat white/ }).innerText()).replace(/\s+/g, ' '),
      /Flat white 2 \$5\.00 \$10\.00/,
    );
    assert.match(
      (await lines.getByRole('row', { name: /Croissant/ }).innerText()).replace(/\s+/g, ' '),
      /Croissant 1 \$4\.50 \$4\.50/,
    );
    const facts = (await sold.innerText()).replace(/\s+/g, ' ');
    assert.match(facts, /Buyer Ada Lovelace/);
    assert.match(facts, /Buyer email ada@example\.com/);
    assert.match(facts, /order_id ORD-10482/);
    assert.match(facts, /channel counter/);
    await s.review(page, 'payment-sold');

    await page.getByRole('link', { name: '← Payments' }).click();
    await page.locator('tr[data-payment]').nth(1).waitFor();
    assert.deepEqual((await rowIds(page)).sort(), [other, paymentId].sort());
    await page.getByLabel('Search').fill('croissant');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/\?q=croissant$/);
    await page.waitForFunction(() => document.querySelectorAll('tr[data-payment]').length === 1);
    assert.deepEqual(await rowIds(page), [paymentId]);
    await s.review(page, 'payments-search');
    assert.deepEqual(problems, []);
  });
});
