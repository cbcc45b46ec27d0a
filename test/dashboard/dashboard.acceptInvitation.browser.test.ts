/**
 * The invitation page of the dashboard web app (`/dashboard/invite#<token>`), in Chromium against the real server:
 * the token is read from the fragment and removed from the address bar at once; a link without a token, or one the
 * server refuses, shows why and how to get a new one.
 */
import assert from 'node:assert/strict';
import { startDashboardBrowser, type DashboardBrowser } from './browser.js';

describe('dashboard.acceptInvitation browser', () => {
  let d: DashboardBrowser;
  before(async () => {
    d = await startDashboardBrowser();
  });
  after(() => d.close());

  it('a link without a token says it holds no invitation; axe clean at both widths', async () => {
    const page = await d.open('/dashboard/invite');
    await page.getByText('This link holds no invitation.').waitFor();
    await d.capture(page, 'invite-invalid');
  });

  it('a refused token: the server message is shown and the token leaves the address bar', async () => {
    const requests: string[] = [];
    const page = await d.open('/dashboard/invite');
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(d.url('/dashboard/invite#ThisIsNotAValidInvitationToken0123456789abc'));
    await page.reload();
    await page.locator('.form-error').waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the fragment is gone');
    assert.ok(
      requests.every((url) => !url.includes('ThisIsNotAValidInvitationToken')),
      'the token is in no request URL',
    );
  });
});
