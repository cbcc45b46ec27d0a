/**
 * The dashboard's Invoices screen in Chromium against the shipped app (issue 35 §3, docs/decisions.md §30.11): an
 * owner sets the numbering, issues an invoice (a price the page cannot read is refused beside its field), sees it
 * listed with its number, opens its public page from the row and voids it behind a confirmation; a viewer reads the
 * list and the numbering with no way to issue or void. axe (zero serious or critical) and screenshots at 1280 and
 * 375 px for each screen.
 */
import assert from 'node:assert/strict';
import { captureWidths } from '../helpers/browser.js';
import { eventually } from '../helpers/wait.js';
import { createPerson, type Person } from './people.js';
import { SHOTS_DIR, signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.invoices browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
  });
  after(() => d.close());

  it('an owner numbers, issues, lists, opens and voids an invoice', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();

    await page.getByLabel('Prefix').fill('ACME-');
    await page.getByLabel('Next number').fill('42');
    await page.getByRole('button', { name: 'Save numbering' }).click();
    await page.getByText('Saved. The next invoice is ACME-0042.').waitFor();

    await page.getByRole('button', { name: 'Create an invoice' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an invoice' });
    await dialog.getByLabel('Item').fill('Website design, March');
    await dialog.getByLabel('Quantity').fill('2');
    await dialog.getByLabel('Price of one').fill('450.001');
    await dialog.getByLabel("Buyer's name").fill('Ada Lovelace');
    await dialog.getByLabel("Buyer's email").fill('ada@example.com');
    await dialog.getByLabel('Notes (optional)').fill('Thank you for your business.');
    await dialog.getByRole('button', { name: 'Create invoice' }).click();
    const price = dialog.getByLabel('Price of one');
    await dialog.getByText('Enter a price in USD, like 12.50.').waitFor();
    assert.equal(await price.getAttribute('aria-invalid'), 'true', 'the error is beside its field');
    await price.fill('450.00');
    await d.capture(page, 'invoices-create');
    await dialog.getByRole('button', { name: 'Create invoice' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.locator('tr', { hasText: 'ACME-0042' });
    await row.getByText('Ada Lovelace').waitFor();
    await row.getByText('$900.00').waitFor();
    await row.getByText('open', { exact: true }).waitFor();
    await page.getByText('Invoice ACME-0042 created.').waitFor();
    await page.getByText('Saved. The next invoice is').waitFor({ state: 'detached' });
    await eventually(
      'the numbering read again',
      async () => (await page.getByLabel('Next number').inputValue()) === '43',
    );
    await d.capture(page, 'invoices');

    const href = (await row.getByRole('link', { name: /^Open page/ }).getAttribute('href'))!;
    assert.match(href, /\/i\/in_[0-9A-Za-z]{24}$/);
    const buyer = await d.open(new URL(href).pathname);
    await buyer.getByRole('heading', { name: 'Invoice ACME-0042' }).waitFor();

    await row.getByRole('button', { name: /^Void/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Void the invoice' });
    await confirm.getByText('ACME-0042').waitFor();
    await confirm.getByRole('button', { name: 'Void invoice' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText('void', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button', { name: /^Void/ }).count(), 0, 'a void invoice has no Void button');
    await captureWidths(page, SHOTS_DIR, 'dashboard-invoices-voided');
  });

  it('a viewer reads the invoices and the numbering, with no create or void', async () => {
    const viewer = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'viewer' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    await page.getByRole('link', { name: 'Invoices' }).click();
    await page.locator('tr', { hasText: 'ACME-0042' }).waitFor();
    await page.getByText('The next invoice is numbered').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create an invoice' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Void/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Save numbering' }).count(), 0);
    await d.capture(page, 'invoices-viewer');
  });
});
