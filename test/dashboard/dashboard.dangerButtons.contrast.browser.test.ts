/**
 * Finding 2 of issue 31, in the shipped shell through the real login: every visible control, danger buttons included
 * ("Cancel payment", "Delete endpoint"), has text that contrasts ≥ 4.5:1 with the background it is drawn on. axe leaves
 * a 1:1 contrast as `incomplete`, so the test computes the ratio itself.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createPerson, type Person } from './people.js';
import { signInThroughPage, startDashboardBrowser, type DashboardBrowser } from './browser.js';

/** Each visible button's or link's text colour against the first opaque background behind it, with its ratio. */
async function contrasts(page: Page): Promise<{ name: string; ratio: number }[]> {
  // A string, not a function: the test runner's transpiler would add helpers the page does not have.
  return page.evaluate<{ name: string; ratio: number }[]>(`(() => {
    const rgb = (c) => (c.match(/[\\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
      }
      return [255, 255, 255];
    };
    return [...document.querySelectorAll('button, a.button, [role="button"]')]
      .filter((el) => el.offsetParent !== null && el.textContent.trim() !== '')
      .filter((el) => !el.disabled)
      .map((el) => {
        const a = lum(rgb(getComputedStyle(el).color));
        const b = lum(background(el));
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        return { name: el.textContent.trim(), ratio: Math.round(ratio * 100) / 100 };
      });
  })()`);
}

describe('dashboard.dangerButtons.contrast [browser]', () => {
  let d: DashboardBrowser;
  let owner: Person;
  const api = (method: string, path: string, body?: unknown) =>
    d.harness.call(method, path, {
      body,
      headers: { 'Api-Key': d.harness.account.testKey, 'Merchant-Id': d.harness.account.merchantId },
    });
  before(async () => {
    d = await startDashboardBrowser();
    owner = await createPerson(d.harness.runtime, { merchantId: d.harness.account.merchantId, role: 'owner' });
  });
  after(() => d.close());

  it('the payment page and the webhooks page draw every control, danger buttons too, at ≥ 4.5:1', async () => {
    const created = await api('POST', '/v1/merchant/payment', {
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order_contrast',
    });
    const { paymentId } = (await created.json()) as { paymentId: string };
    const endpoint = await api('POST', '/v1/dashboard/webhook-endpoint', { url: `${d.harness.server.url}/hooks` });
    assert.equal(endpoint.status, 201, await endpoint.clone().text());

    const page = await d.open('/dashboard/login');
    await signInThroughPage(page, owner);
    await page.goto(d.url(`/dashboard/payments/${paymentId}`));
    await page.getByRole('button', { name: 'Cancel payment', exact: true }).waitFor();
    const onPayment = await contrasts(page);
    assert.ok(onPayment.some((c) => c.name === 'Cancel payment'));
    await d.capture(page, 'danger-payment');

    await page.goto(d.url('/dashboard/webhooks'));
    await page.getByRole('button', { name: 'Delete', exact: true }).first().waitFor();
    const onWebhooks = await contrasts(page);
    await d.capture(page, 'danger-webhooks');

    const low = [...onPayment, ...onWebhooks].filter((c) => c.ratio < 4.5);
    assert.deepEqual(low, []);
  });
});
