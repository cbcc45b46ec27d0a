/**
 * The overview in a real Chromium against a real server: a new merchant's empty state with its first steps (no curl
 * line), then per-currency totals and the daily-volume chart with its hidden data table once payments exist (exact
 * amounts, success rate with its denominator said, bars whose values show on hover and keyboard focus), and a failing
 * read shown instead of the figures (issue 31 finding 14).
 */
import assert from 'node:assert/strict';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.overview [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('a new merchant sees first steps instead of an API call, creates a test payment and gets its checkout link', async () => {
    const m = await s.d.merchant();
    const { page, problems } = await s.open(m, '/dashboard');
    await page.getByTestId('overview-empty').waitFor();
    await page.getByRole('heading', { name: 'No payments yet' }).waitFor();
    const empty = (await page.getByTestId('overview-empty').textContent()) ?? '';
    assert.ok(!/POST|curl|\/v1\//.test(empty), `no API call in the empty state: ${empty}`);
    const steps = page.getByRole('list', { name: 'First steps' });
    await steps.waitFor();
    // The merchant was created with an API key; it has no webhook endpoint and no test payment yet.
    const items = (await steps.getByRole('listitem').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    assert.equal(items.length, 3, items.join(' | '));
    assert.match(items[0]!, /^Done: Create an API key/);
    assert.match(items[1]!, /^To do: Add a webhook endpoint/);
    assert.match(items[2]!, /^To do: Make a test payment/);
    await steps.getByRole('link', { name: 'Add a webhook endpoint' }).waitFor();
    await s.review(page, 'overview-empty');

    // "Create a test payment": a refused amount is said beside its field, then the payment's checkout link is given.
    await page.getByRole('button', { name: 'Create a test payment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a test payment' });
    await dialog.getByLabel('Amount (US dollars)').fill('twelve');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Enter an amount in dollars, such as 12.50.').waitFor();
    await dialog.getByLabel('Amount (US dollars)').fill('12.5');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const made = page.getByTestId('test-payment');
    await made.getByRole('button', { name: 'Copy checkout link' }).waitFor();
    const href = await made.getByRole('link', { name: 'Open the checkout' }).getAttribute('href');
    assert.match(href ?? '', /\/pay\/pay_[A-Za-z0-9]+$/);
    // The overview reads again: the payment is counted and its step is done.
    await page.locator('[data-currency="iso4217/USD"]').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Done: Make a test payment' }).waitFor();
    await s.review(page, 'overview-test-payment');
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
    // The rate's denominator is said: the finished payments, the one still open left out.
    assert.ok(
      (await today.textContent())!.includes('of finished payments; 1 open not counted'),
      `denominator in ${await today.textContent()}`,
    );
    // The chart is one bar a day, not a line ramping between days; a bar's values show on hover and on focus.
    const chart = card.getByRole('group', { name: /Daily volume in USD/ });
    assert.equal(await chart.locator('canvas, svg path').count(), 0, 'no line drawn between days');
    assert.equal(await chart.locator('[data-day]').count(), 30);
    const readout = card.getByTestId('chart-readout-iso4217/USD');
    await chart.locator('[data-day="2026-02-18"]').hover();
    assert.equal((await readout.textContent())?.trim(), `2026-02-18: ${volume}, 3 payments`);
    await chart.locator('[data-day="2026-02-10"]').hover();
    assert.equal((await readout.textContent())?.trim(), '2026-02-10: $0.00, 0 payments');
    await chart.focus();
    await page.keyboard.press('End');
    assert.equal((await readout.textContent())?.trim(), `2026-02-18: ${volume}, 3 payments`);
    await page.keyboard.press('ArrowLeft');
    assert.equal((await readout.textContent())?.trim(), '2026-02-17: $0.00, 0 payments');
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
