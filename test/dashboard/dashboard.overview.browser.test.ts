/**
 * The overview in a real Chromium against a real server: a new merchant's empty state, then per-currency totals and
 * the daily-volume chart with its hidden data table once payments exist (exact amounts, success rate), and a failing
 * read shown instead of the figures.
 */
import assert from 'node:assert/strict';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.overview [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('a new merchant sees the empty state', async () => {
    const m = await s.d.merchant();
    const { page, problems } = await s.open(m, '/dashboard');
    await page.getByTestId('overview-empty').waitFor();
    await page.getByRole('heading', { name: 'No payments yet' }).waitFor();
    await s.review(page, 'overview-empty');
    assert.deepEqual(problems, []);
  });

  it('shows today, 7 and 30 days per currency, with the chart and its data table', async () => {
    const m = await s.d.merchant();
    const ids = [await m.createPayment(), await m.createPayment(), await m.createPayment()];
    for (const to of ['processing', 'succeeded']) {
      const res = await m.call('POST', `/v1/merchant/test/payment/${ids[0]}/simulate`, { body: { to } });
      assert.equal(res.status, 200);
    }
    const failed = await m.call('POST', `/v1/merchant/test/payment/${ids[1]}/simulate`, { body: { to: 'failed' } });
    assert.equal(failed.status, 200);
    const api = (await (await m.call('GET', '/v1/dashboard/overview')).json()) as {
      currencies: { currency: string; today: { volume: string; count: number; successRate: string | null } }[];
    };
    const usd = api.currencies.find((c) => c.currency === 'iso4217/USD')!;

    const { page, problems } = await s.open(m, '/dashboard');
    const card = page.locator('[data-currency="iso4217/USD"]');
    await card.waitFor();
    const today = card.getByRole('region', { name: 'Today, USD' });
    const volume = `$${(Number(usd.today.volume) / 100).toFixed(2)}`;
    assert.equal(await today.locator('.volume').textContent(), volume);
    assert.match((await today.textContent())!, new RegExp(`Payments${usd.today.count}`));
    assert.equal(usd.today.count, 3);
    assert.notEqual(usd.today.successRate, null, 'one succeeded and one failed payment make a rate');
    const percent = `${(Number(usd.today.successRate) * 100).toFixed(1)}%`;
    assert.ok((await today.textContent())!.includes(percent), `${percent} in ${await today.textContent()}`);
    // The chart is drawn (a canvas) and hidden from assistive technology; its numbers are in the hidden table.
    await card.locator('[data-testid="chart-iso4217/USD"] canvas').first().waitFor({ state: 'attached' });
    assert.equal(await card.locator('[data-testid="chart-iso4217/USD"]').getAttribute('aria-hidden'), 'true');
    const table = card.locator('table');
    assert.match((await table.locator('caption').textContent())!, /Daily volume in USD, last 30 days/);
    assert.equal(await table.locator('tbody tr').count(), 30);
    const lastRow = table.locator('tbody tr').last();
    assert.equal(await lastRow.locator('th').textContent(), '2026-02-18');
    assert.equal(await lastRow.locator('td').first().textContent(), volume);
    await s.review(page, 'overview');
    assert.deepEqual(problems, []);
  });

  it('shows the server’s refusal instead of figures (a member removed while signed in)', async () => {
    const m = await s.d.merchant();
    const { page, person } = await s.open(m, '/dashboard');
    await page.getByTestId('overview-empty').waitFor();
    await s.d.harness.runtime.db
      .knex('memberships')
      .where({ merchant_id: m.account.merchantId, user_id: person.userId })
      .delete();
    // The next read (the live figures) is made for a merchant the user no longer belongs to.
    await page.getByRole('switch', { name: 'Test mode' }).click();
    const alert = page.getByRole('alert').filter({ hasText: /\S/ });
    await alert.waitFor();
    assert.ok((await alert.textContent())!.length > 0);
    assert.equal(await page.locator('[data-currency]').count(), 0);
    assert.equal(await page.getByTestId('overview-empty').count(), 0);
  });
});
