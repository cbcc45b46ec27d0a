/**
 * Issue 31 finding 3, in the shipped app: the payment page says what was paid the way a merchant reads it — whole
 * units with the token's symbol and the fiat value beside it, the network by name, the buyer's address — and never a
 * raw minor-unit count or a CAIP id as the text (they stay in titles and the JSON view). Before, a processing payment
 * showed "Paid with 4166666666666667 caip19/eip155:31337/slip44:60", "Chain eip155:31337" and a CAIP-10 buyer.
 */
import assert from 'node:assert/strict';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.paymentDetail.amounts [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('shows what was paid in whole units with its symbol and fiat value, the network by name, no raw ids', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await page.getByRole('button', { name: 'Simulate processing', exact: true }).click();
    await page.getByText('Simulated processing: the payment is now processing.').waitFor();

    const processing = page.getByRole('region', { name: 'Processing', exact: true });
    await processing.waitFor();
    const text = (await processing.innerText()).replace(/\s+/g, ' ');
    assert.doesNotMatch(text, /(^|\s)\d{9,}(\s|$)/, `no raw minor units: ${text}`);
    assert.doesNotMatch(text, /caip19\/|eip155:|solana:/, `no CAIP id as text: ${text}`);
    // The simulator pays with its sample token (6 decimals, one per dollar) on its sample network, which the page's
    // config names; this harness configures no chain of its own.
    assert.match(text, /Paid with 12\.5 TEST \(\$12\.50\)/, `whole units with the symbol and the fiat value: ${text}`);
    assert.match(text, /Network Simulated network/, `the network by name: ${text}`);
    assert.match(text, /Buyer 0x0{36}dEaD/, `the buyer's address without its CAIP prefix: ${text}`);
    await s.review(page, 'payment-amounts');
    assert.deepEqual(problems, []);
  });
});
