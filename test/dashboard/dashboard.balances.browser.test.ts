/**
 * The Balances & payouts screen, its payout detail and the Settings screen's settlement mode, in Chromium against the
 * real server: balances, fee balance and payouts of the mode the switch shows, the ledger and payouts CSVs downloaded
 * through the browser, a payout's payments; empty states; the settlement mode changed by an owner after a
 * confirmation (a refusal shown in the dialog), read-only for a viewer. axe at both widths.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';
import { parseCsv } from './merchantData.js';
import { callAs, createPerson, signInAs, type Person } from './people.js';
import { PAYOUT_TX, writeSettlement, type SettlementData } from './settlementData.js';

describe('dashboard.balances browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  let viewer: Person;
  let s: SettlementData;
  before(async () => {
    d = await startDashboardBrowser();
    const h = d.harness;
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    viewer = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'viewer' });
    s = await writeSettlement(h.runtime.db.knex, h.account.merchantId, h.clock.now() - 3_600_000);
  });
  after(() => d.close());

  const toLive = async (page: Page) => {
    await page.getByRole('switch', { name: 'Test mode' }).click();
    await page.getByText('Live-mode figures.').waitFor();
  };

  it('balances, fees and payouts of the shown mode; both CSVs downloaded; a payout opened with its payments', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Balances & payouts' }).click();
    // Test mode first: one payout and 7 minor units owed (no chain configured here, so amounts stay in minor units).
    await page.getByText('Test-mode figures.').waitFor();
    await page.locator(`tr[data-payout="${s.testPayout}"]`).waitFor();
    assert.equal(await page.locator('tr[data-payout]').count(), 1);
    await page.getByRole('region', { name: 'Owed to you' }).getByText('7 minor units').waitFor();
    // What a partly paid payment received is the buyer's (docs/decisions.md §26.22): the balance says it leaves it out.
    await page
      .getByRole('region', { name: 'Owed to you' })
      .getByText(/partly paid or overpaid payment received is the buyer's, not counted here/)
      .waitFor();
    await page.getByText('No fee has accrued in this mode.').waitFor();

    await toLive(page);
    await page.locator(`tr[data-payout="${s.payouts.sent}"]`).waitFor();
    assert.equal(await page.locator('tr[data-payout]').count(), 3);
    assert.match((await page.locator(`tr[data-payout="${s.payouts.final}"]`).innerText()) ?? '', /\tPaid out\t/);
    await page.getByRole('region', { name: 'Fees owed' }).getByText('225000 minor units').first().waitFor();
    await d.capture(page, 'balances');

    const [ledger] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download ledger CSV' }).click(),
    ]);
    assert.match(ledger.suggestedFilename(), /^ledger-live-\d{4}-\d{2}-\d{2}\.csv$/);
    const ledgerRows = parseCsv(readFileSync((await ledger.path())!, 'utf8'));
    assert.deepEqual(
      ledgerRows.map((r) => r[1]),
      ['kind', 'received', 'fee', 'payable', 'paid_out'],
    );
    const [payouts] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download payouts CSV' }).click(),
    ]);
    assert.match(payouts.suggestedFilename(), /^payouts-live-\d{4}-\d{2}-\d{2}\.csv$/);
    const payoutRows = parseCsv(readFileSync((await payouts.path())!, 'utf8'));
    assert.deepEqual(
      payoutRows.map((r) => r[0]),
      ['payout_id', s.payouts.sent, s.payouts.final, s.payouts.final, s.payouts.failed],
    );

    await page.locator(`tr[data-payout="${s.payouts.final}"] a`).click();
    await page.getByRole('heading', { name: `Payout ${s.payouts.final}` }).waitFor();
    await page.getByText(PAYOUT_TX).waitFor();
    const covered = page.getByRole('region', { name: 'Payments covered' });
    for (const id of [s.payments[0]!, s.payments[1]!]) await covered.getByRole('link', { name: id }).waitFor();
    await d.capture(page, 'payout');
  });

  it('a merchant with no settlement yet sees the empty states', async () => {
    const account = await createMerchantAccount(d.harness.runtime);
    const other = await createPerson(d.harness.runtime, { merchantId: account.merchantId, role: 'owner' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, other);
    await page.goto(d.url('/dashboard/balances'));
    await page.getByText('No test-mode payout yet.', { exact: false }).waitFor();
    await page.getByText('Nothing owed: no collected payment in this mode yet.').waitFor();
    await page.getByText('No fee has accrued in this mode.').waitFor();
    await d.capture(page, 'balances-empty');
  });

  it('settings: an owner changes the settlement mode after confirming; a refusal stays in the dialog', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url('/dashboard/settings'));
    await page.getByLabel('Direct (current)').waitFor();
    const change = page.getByRole('button', { name: 'Change settlement mode' });
    assert.ok(await change.isDisabled());
    await page.getByLabel('Collected').check();
    await change.click();
    const dialog = page.getByRole('dialog', { name: 'Switch to collected settlement?' });
    await dialog.getByText('operator pays you out on a schedule').waitFor();
    await dialog.getByRole('button', { name: 'Switch to collected' }).click();
    // This merchant has no settlement address yet: the server refuses, and the dialog says why.
    await dialog.getByRole('alert').waitFor();
    await d.capture(page, 'settings-mode-refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    const session = await signInAs(d.harness, owner);
    const saved = await callAs(d.harness, session, 'PATCH', '/v1/dashboard/settings', {
      body: { settlementAddresses: { 'eip155:8453': '0x52908400098527886E0F7030069857D2E4169EE7' } },
      merchantId: d.harness.account.merchantId,
    });
    assert.equal(saved.status, 200);
    await change.click();
    await dialog.getByRole('button', { name: 'Switch to collected' }).click();
    await page.getByLabel('Collected (current)').waitFor();
    await page.getByText('Settlement mode changed').waitFor();
    await d.capture(page, 'settings-mode');
  });

  it('settings: a viewer reads the settlement mode and cannot change it', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, viewer);
    await page.goto(d.url('/dashboard/settings'));
    await page.getByLabel('Collected (current)').waitFor();
    assert.ok(await page.getByLabel('Direct').isDisabled());
    assert.equal(await page.getByRole('button', { name: 'Change settlement mode' }).count(), 0);
  });
});
