/**
 * The Settings screen's logo in Chromium, in the shipped app through the real sign-in: an owner uploads a PNG (the
 * preview shows it, loaded from this origin under the page's CSP), an SVG is refused beside the file input with the
 * server's sentence, and the logo is removed (the initial again). axe and screenshots at both widths.
 */
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { eventually } from '../helpers/wait.js';
import { createPerson, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';
import { pngLogo, SVG_LOGO } from './logoFiles.js';

/** Whether the image finished loading with pixels (a CSP-blocked or broken image has naturalWidth 0). */
function drawn(region: Locator): Promise<boolean> {
  return region
    .getByRole('img')
    .evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0);
}

describe('dashboard.settingsLogo browser', () => {
  let d: DashboardBrowser;
  let owner: Person;
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
  });
  after(() => d.close());

  it('owner uploads a PNG logo and sees it; an SVG is refused beside the input; the logo is removed', async () => {
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    const region = page.getByRole('region', { name: 'Logo' });
    await region.getByLabel('Upload a logo').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: pngLogo(96, 96),
    });
    await region.getByRole('status').getByText('Logo uploaded').waitFor();
    await eventually('the uploaded logo to be drawn', () => drawn(region));
    assert.match((await region.getByRole('img').getAttribute('alt'))!, /'s logo$/);
    assert.match((await region.getByRole('img').getAttribute('src'))!, /^\/logos\/[0-9a-f]{64}\.png$/);
    await d.capture(page, 'settings-logo');

    const input = region.getByLabel('Replace the logo');
    await input.setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: SVG_LOGO });
    await region
      .getByText('SVG logos are not accepted (an SVG can carry script): upload a PNG, JPEG or WebP image.')
      .waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    await d.capture(page, 'settings-logo-refused');

    await region.getByRole('button', { name: 'Remove the logo' }).click();
    await region.getByRole('status').getByText('Logo removed').waitFor();
    // The panel shows the upload field once its settings are read again; the image is gone by then, not at the status.
    await region.getByLabel('Upload a logo').waitFor();
    assert.equal(await region.getByRole('img').count(), 0);
  });
});
