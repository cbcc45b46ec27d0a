/**
 * The payments list in a real Chromium against a real server: the table, the filters (kept in the URL), cursor paging
 * forth and back, a refused filter shown beside its field, and the CSV export downloaded through the browser under
 * the page's 'self'-only CSP (fetch → Blob → a download link), named from Content-Disposition.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.payments [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
  const rows = (page: Page) => page.locator('tr[data-payment]');
  const rowIds = (page: Page) => rows(page).evaluateAll((r) => r.map((e) => e.getAttribute('data-payment')!));

  it('lists, filters by status and reference (in the URL), and exports the filtered CSV', async () => {
    const m = await s.d.merchant();
    const ids = [await m.createPayment(), await m.createPayment(), await m.createPayment()];
    const simulated = await m.call('POST', `/v1/merchant/test/payment/${ids[1]}/simulate`, {
      body: { to: 'processing' },
    });
    assert.equal(simulated.status, 200);
    const { page, problems } = await s.open(m, '/dashboard/payments');
    await rows(page).nth(2).waitFor();
    assert.deepEqual((await rowIds(page)).sort(), [...ids].sort());
    assert.match((await rows(page).first().textContent())!, /\$12\.50/);
    // Statuses in the merchant's words (issue 31 finding 16), not the contract's ids.
    const processingRow = (await page.locator(`tr[data-payment="${ids[1]}"]`).textContent())!;
    assert.ok(processingRow.includes('Confirming') && !processingRow.includes('processing'), processingRow);
    const waitingRow = (await page.locator(`tr[data-payment="${ids[0]}"]`).textContent())!;
    assert.ok(waitingRow.includes('Waiting for payment') && !/requires/.test(waitingRow), waitingRow);
    assert.ok((await page.getByLabel('Status').textContent())!.includes('Waiting for payment'));
    await s.review(page, 'payments');

    // Status filter: one row, and the filter is in the URL.
    await page.getByLabel('Status').selectOption('processing');
    await button(page, 'Apply filters').click();
    await page.waitForURL(/\?status=processing$/);
    await page.waitForFunction(() => document.querySelectorAll('tr[data-payment]').length === 1);
    assert.deepEqual(await rowIds(page), [ids[1]]);

    // The CSV of the same filter, downloaded by the browser.
    const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Export CSV').click()]);
    assert.match(download.suggestedFilename(), /^payments-test-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    assert.equal(lines.length, 2, csv);
    assert.match(lines[0]!, /id/);
    assert.ok(lines[1]!.includes(ids[1]!), csv);
    await page.getByText(/^Downloading payments-test-/).waitFor();

    // Reloading keeps the filter (from the URL); a reference search finds exactly one payment.
    await page.reload();
    assert.equal(await page.getByLabel('Status').inputValue(), 'processing');
    await page.getByLabel('Status').selectOption('');
    const reference = (await (await m.call('GET', `/v1/merchant/payment/${ids[2]}`)).json()) as {
      reference_id: string;
    };
    await page.getByLabel('Reference').fill(reference.reference_id);
    await button(page, 'Apply filters').click();
    await page.waitForURL(/reference=/);
    await page.waitForFunction(() => document.querySelectorAll('tr[data-payment]').length === 1);
    assert.deepEqual(await rowIds(page), [ids[2]]);

    // A date range after today: nothing matches.
    await button(page, 'Clear').click();
    await rows(page).nth(2).waitFor();
    await page.getByLabel('Created from').fill('2026-03-01');
    await button(page, 'Apply filters').click();
    await page.getByTestId('payments-empty').waitFor();
    assert.match(page.url(), /from=2026-03-01/);

    // Opening a payment from the list.
    await button(page, 'Clear').click();
    await rows(page).first().getByRole('link').click();
    await page.waitForURL(/\/dashboard\/payments\/pay_/);
    await page.getByRole('region', { name: 'Timeline' }).waitFor();
    assert.deepEqual(problems, []);
  });

  it('pages forward and back with the cursor stack', async () => {
    const m = await s.d.merchant();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) ids.push(await m.createPayment());
    const { page } = await s.open(m, '/dashboard/payments');
    await rows(page).nth(24).waitFor();
    const first = await rowIds(page);
    assert.equal(first.length, 25);
    await button(page, 'Next').click();
    await page.getByText('Page 2').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('tr[data-payment]').length === 2);
    const second = await rowIds(page);
    assert.deepEqual([...first, ...second].sort(), [...ids].sort());
    assert.equal(await button(page, 'Next').isDisabled(), true);
    await button(page, 'Previous').click();
    await page.getByText('Page 1').waitFor();
    await page.waitForFunction(() => document.querySelectorAll('tr[data-payment]').length === 25);
    assert.deepEqual(await rowIds(page), first);
  });

  it('shows a refused filter beside its field', async () => {
    const m = await s.d.merchant();
    const { page } = await s.open(m, '/dashboard/payments');
    await page.getByLabel('Reference').fill('x'.repeat(300));
    await button(page, 'Apply filters').click();
    const reference = page.getByLabel('Reference');
    await page.locator('.field .field-error').waitFor();
    assert.equal(await reference.getAttribute('aria-invalid'), 'true');
    const errorId = (await reference.getAttribute('aria-describedby'))!;
    assert.match((await page.locator(`[id="${errorId}"]`).textContent())!, /referenceId|255/);
  });
});
