/**
 * Issue 31 finding 10 (docs/decisions.md §26.27): the point-of-sale screen (`/pos/{posId}`) shows the merchant's
 * uploaded logo beside its name in the top bar once the key is entered, drawn from this origin's `/logos/`, and
 * nothing leaves the origin; without a logo the bar is as before (the name alone). In the shipped app; axe and
 * screenshots at 1280 and 375 px.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { setMerchantLogo } from '../../server/src/accounts/logo.js';
import { findMerchant } from '../../server/src/db/queries/accounts.js';
import { expectJson } from '../merchant/harness.js';
import { captureWidths } from '../helpers/browser.js';
import { startDashboardBrowser, type DashboardBrowser } from '../dashboard/browser.js';
import { pngLogo } from '../dashboard/logoFiles.js';
import { assertLogoDrawn, requestsElsewhere } from '../dashboard/logoShown.js';
import type { CreatedTerminal } from './harness.js';

const SHOTS = join(process.cwd(), 'test-results', 'pos');

describe('pos.screen merchant logo (browser)', () => {
  let d: DashboardBrowser;
  let merchantName: string;
  let t: CreatedTerminal;
  before(async () => {
    d = await startDashboardBrowser();
    merchantName = (await findMerchant(d.harness.runtime.db.knex, d.harness.account.merchantId))!.name;
    t = await expectJson<CreatedTerminal>(
      await d.harness.call('POST', '/v1/dashboard/pos-terminals', {
        body: { name: 'Counter', currency: 'USD', catalogue: [], tipPercents: [10, 15] },
      }),
      201,
    );
  });
  after(() => d.close());

  /** Unlocks the screen with the terminal's key, as the person at the counter does once per device. */
  async function unlock(page: Page): Promise<void> {
    await page.getByLabel('POS access key').fill(t.key);
    await page.getByRole('button', { name: 'Save on this device' }).click();
    await page.getByRole('group', { name: 'Keypad' }).waitFor();
  }

  it('without a logo, the top bar shows the merchant name alone', async () => {
    const page = await d.open(`/pos/${t.terminal.id}`);
    await unlock(page);
    await page.getByRole('banner').getByText(`${merchantName} · Counter`).waitFor();
    assert.equal(await page.getByRole('banner').getByRole('img').count(), 0);
  });

  it('with an uploaded logo, the top bar shows it beside the merchant name, drawn from this origin', async () => {
    await setMerchantLogo(d.harness.runtime, d.harness.account.merchantId, pngLogo(96, 96).toString('base64'));
    const context = await d.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const elsewhere = requestsElsewhere(page, d.url(''));
    await page.goto(d.url(`/pos/${t.terminal.id}`));
    await unlock(page);
    const bar = page.getByRole('banner');
    await bar.getByText(`${merchantName} · Counter`).waitFor();
    const logo = bar.getByRole('img', { name: `${merchantName}'s logo` });
    assert.equal(await logo.count(), 1, 'the top bar shows the merchant logo');
    await assertLogoDrawn(logo, merchantName);
    await captureWidths(page, SHOTS, 'register-logo');
    assert.deepEqual(elsewhere, []);
    await context.close();
  });
});
