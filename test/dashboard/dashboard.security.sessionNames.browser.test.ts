/**
 * Issue 31 finding 16 (sessions), in the shipped app: the Security screen names each session by its browser and
 * operating system ("Chrome on Linux"), not by the raw user-agent string; the full string stays in the title.
 */
import assert from 'node:assert/strict';
import { createPerson } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.security.sessionNames [browser]', () => {
  let d: DashboardBrowser;
  before(async () => {
    d = await startDashboardBrowser();
  });
  after(() => d.close());

  it('names this session by browser and OS, with the raw user agent only in its title', async () => {
    const person = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, person);
    await page.goto(d.url('/dashboard/settings/security'));
    const row = page.locator('[data-session="current"]');
    await row.waitFor();
    const name = (await row.locator('td').first().innerText()).replace(/\s+/g, ' ');
    assert.doesNotMatch(name, /Mozilla\/5\.0/, `no raw user agent: ${name}`);
    // Playwright's Chromium on this Linux machine.
    assert.match(name, /^Chrome on Linux/, `browser and OS: ${name}`);
    const ua = await page.evaluate(() => navigator.userAgent);
    assert.equal(await row.locator('[title]').first().getAttribute('title'), ua);
    await d.capture(page, 'security-sessions');
  });
});
