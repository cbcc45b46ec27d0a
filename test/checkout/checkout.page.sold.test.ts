import assert from 'node:assert/strict';
import { startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** Issue 35 §1 (decisions.md §30.1): the checkout shows what the buyer pays for, never the merchant's buyer record. */
describe('hosted checkout page: what was sold', () => {
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(async () => {
    await h?.close();
  });

  it('shows the description and each line with its total, and neither the buyer nor the metadata', async () => {
    const paymentId = await h.payment({
      amount: { unit: 'iso4217/USD', value: '1450' },
      extra: {
        description: 'Table 4\nTwo flat whites and a croissant',
        lineItems: [
          { name: 'Flat white', quantity: 2, unitAmount: '500' },
          { name: 'Croissant', quantity: 1, unitAmount: '450' },
        ],
        buyer: { email: 'hidden.buyer@example.com', name: 'Hidden Buyer' },
        metadata: { table: 'secret-table-4' },
      },
    });
    const { page } = await h.open(paymentId);
    const description = page.getByTestId('payment-description');
    await description.waitFor();
    assert.equal(await description.innerText(), 'Table 4\nTwo flat whites and a croissant');
    const lines = page.getByRole('table', { name: 'What you are paying for' });
    assert.equal(await lines.getByRole('row').count(), 2);
    assert.match(await lines.getByRole('row', { name: /2 × Flat white/ }).innerText(), /\$10\.00/);
    assert.match(await lines.getByRole('row', { name: /1 × Croissant/ }).innerText(), /\$4\.50/);
    const text = await page.locator('body').innerText();
    for (const hidden of ['hidden.buyer@example.com', 'Hidden Buyer', 'secret-table-4']) {
      assert.ok(!text.includes(hidden), `${hidden} is not on the page`);
    }
    assert.ok(!(await page.content()).includes('hidden.buyer@example.com'), 'nor in the page source');
    await h.accessible(page, 'what was sold');
    await h.capture(page, 'sold');
  });
});
