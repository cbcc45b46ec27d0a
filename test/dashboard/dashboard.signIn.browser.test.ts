/**
 * Signing in to the dashboard web app, in Chromium against the real server: a refused sign-in shows the server's
 * message and stays there; the page passes axe at both widths.
 */
import assert from 'node:assert/strict';
import { startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.signIn browser', () => {
  let d: DashboardBrowser;
  before(async () => {
    d = await startDashboardBrowser();
  });
  after(() => d.close());

  it('sign-in page: labelled fields, axe clean, screenshots at 1280 and 375', async () => {
    const page = await d.open('/dashboard/login');
    await page.getByLabel('Email').waitFor();
    assert.equal(await page.getByLabel('Email').getAttribute('autocomplete'), 'username');
    assert.equal(await page.getByLabel('Password').getAttribute('type'), 'password');
    await d.capture(page, 'login');
  });

  it('sign-in refused: the server message shows in an alert, the page stays on sign-in with the password kept out of the URL', async () => {
    const page = await d.open('/dashboard/login');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.locator('.form-error');
    await alert.waitFor();
    assert.ok(((await alert.textContent()) ?? '').length > 10, 'a message is shown');
    assert.equal(new URL(page.url()).pathname, '/dashboard/login');
    assert.doesNotMatch(page.url(), /not%20the|nobody/);
    assert.deepEqual(await page.context().cookies(), []);
  });
});
