/**
 * What the buyer chooses from (issue 31 findings 4, 7 and 9): what the payment accepts and the merchant's order
 * reference before any wallet is connected; then the options, simplest first (a gasless stablecoin), with amounts
 * under the one display rule (web/src/kit/amounts.ts), the rate and how long the price holds, one primary action, and
 * the progress of a payment shown on the option that was chosen.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useChainSnapshots } from '../helpers/chain.js';
import { shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** The buttons of the open view that are drawn filled with the accent colour (the page's primary look). */
async function primaryButtons(page: Page): Promise<string[]> {
  return page.locator('[data-view="open"] button').evaluateAll((buttons) => {
    const accent = getComputedStyle(document.documentElement).getPropertyValue('--accent').trim();
    const probe = document.createElement('span');
    probe.style.color = accent;
    document.body.append(probe);
    const accentRgb = getComputedStyle(probe).color;
    probe.remove();
    return buttons
      .filter((b) => (b as HTMLElement).checkVisibility() && getComputedStyle(b).backgroundColor === accentRgb)
      .map((b) => (b.textContent ?? '').trim());
  });
}

describe('hosted checkout page: the options a buyer chooses from', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  const referenceOf = async (paymentId: string): Promise<string> =>
    (await h.runtime.db.knex('payments').where({ id: paymentId }).first()).reference_id as string;

  it('before connecting, the page lists the tokens and networks it accepts and shows the merchant’s order reference (issue 31 finding 9)', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.payment();
    const { page } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    const accepted = page.getByRole('list', { name: 'You can pay with' });
    const items = await accepted.getByRole('listitem').allTextContents();
    assert.ok(items.includes('TUSD on Local'), items.join(', '));
    assert.ok(items.includes('ETH on Local'), items.join(', '));
    assert.ok(items.includes('TUSD on Local Solana'), `and on Solana: ${items.join(', ')}`);
    await shows(page, `Order ${await referenceOf(paymentId)}`);
    await h.accessible(page, 'what can be paid with');
    await h.capture(page, 'before-connecting');
  });

  it('list options: amounts follow the one display rule, the ether option and its button show 0.00416667 ETH (rounded up) with the exact amount on demand, the rate and how long the price holds (issue 31 finding 4)', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.payment();
    const { page } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const ether = page.getByTestId('option').filter({ hasText: /\bETH\b/ });
    const tusd = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await ether.waitFor();
    assert.equal(await ether.getByTestId('option-amount').textContent(), '0.00416667 ETH');
    assert.equal(await ether.getByRole('button', { name: /^Pay 0\.00416667 ETH on Local/ }).count(), 1);
    assert.equal(await tusd.getByTestId('option-amount').textContent(), '12.50 TUSD');
    assert.equal(await tusd.getByRole('button', { name: /^Pay 12\.50 TUSD on Local/ }).count(), 1);
    // The exact amount, on demand: nothing of it is lost to the rounding.
    await ether.getByText('Exact amount').click();
    assert.equal(await ether.getByTestId('option-exact').textContent(), '0.004166666666666667 ETH');
    // 12.50 USD for 0.004166666666666667 ETH: 3,000 USD per ETH; the quote's own expiry.
    assert.match((await ether.textContent()) ?? '', /1 ETH = \$3,000\.00/);
    assert.match((await ether.textContent()) ?? '', /Price held until \d{1,2}:\d{2}/);
    await h.accessible(page, 'the options with their rates');
    await h.capture(page, 'options-amounts');
  });

  it('list options: the gasless stablecoin comes first and is the one primary action; paying shows its progress on the chosen option (issue 31 finding 7)', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.payment();
    const { page, evm } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    await page
      .getByTestId('option')
      .filter({ hasText: /\bETH\b/ })
      .waitFor();
    const order = await page.getByTestId('option-amount').allTextContents();
    assert.match(order[0] ?? '', /TUSD$/, `the stablecoin first: ${order.join(', ')}`);
    const primary = await primaryButtons(page);
    assert.equal(primary.length, 1, `one primary action: ${primary.join(', ')}`);
    assert.match(primary[0]!, /^Pay 12\.50 TUSD on Local/);

    const held = evm!.holdNext('eth_signTypedData_v4');
    const chosen = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await chosen.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await held.asked;
    await chosen.getByText('Confirm the payment in your wallet…').waitFor();
    assert.equal(await chosen.getAttribute('aria-busy'), 'true');
    const other = page.getByTestId('option').filter({ hasText: /\bETH\b/ });
    assert.equal(await other.getByText('Confirm the payment in your wallet…').count(), 0);
    await h.accessible(page, 'the chosen option in progress');
    await h.capture(page, 'option-in-progress');
    held.reject();
    await shows(page, /You declined the request in your wallet/);
  });
});
