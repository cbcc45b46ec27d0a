/**
 * Issue 31 findings 15 and 16 on payouts (docs/decisions.md §26.25): a payout's state is in the merchant's words
 * ("Paid out", "In transit", "Failed") on Balances and on its page, not the ledger's ids ("final", "sent"), and the
 * payments it covered are the kit's table: cards at 375 px with each payment's link on screen, a click on a row opens
 * the payment.
 */
import assert from 'node:assert/strict';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';
import { createPerson, type Person } from './people.js';
import { writeSettlement, type SettlementData } from './settlementData.js';

const WIDTH = 375;

describe('dashboard.payoutDetail browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let s: SettlementData;
  before(async () => {
    d = await startDashboardBrowser();
    const h = d.harness;
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    s = await writeSettlement(h.runtime.db.knex, h.account.merchantId, h.clock.now() - 3_600_000);
  });
  after(() => d.close());

  it('names payout states in words, and its payments are cards at 375 px that open the payment', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Balances & payouts' }).click();
    await page.getByRole('switch', { name: 'Test mode' }).click();
    const row = (id: string) => page.locator(`tr[data-payout="${id}"]`);
    await row(s.payouts.sent).waitFor();
    const words = await Promise.all(
      [s.payouts.final, s.payouts.sent, s.payouts.failed].map((id) => row(id).innerText()),
    );
    assert.match(words[0]!, /Paid out/);
    assert.match(words[1]!, /In transit/);
    assert.match(words[2]!, /Failed/);
    assert.ok(!/\t(final|sent)\t/.test(words.join('\n')), words.join('\n'));

    await row(s.payouts.final).locator('a').click();
    await page.getByRole('heading', { name: `Payout ${s.payouts.final}` }).waitFor();
    const state = await page.locator('dt:text-is("State") + dd').innerText();
    assert.match(state, /^Paid out/);
    const covered = page.getByRole('region', { name: 'Payments covered' });
    const first = covered.locator(`tr[data-payment="${s.payments[0]}"]`);
    await first.waitFor();

    await page.setViewportSize({ width: WIDTH, height: 900 });
    const link = first.getByRole('link', { name: s.payments[0] });
    const box = await link.boundingBox();
    assert.ok(
      box && box.x >= 0 && box.x + box.width <= WIDTH,
      `the payment's link is on screen: ${JSON.stringify(box)}`,
    );
    await d.capture(page, 'payout-detail');

    await first.locator('td').nth(1).click();
    await page.waitForURL(`**/dashboard/payments/${encodeURIComponent(s.payments[0]!)}`);
  });
});
