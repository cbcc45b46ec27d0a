/**
 * Issue 31 findings 15 and 16 on the webhook delivery log (docs/decisions.md §26.25): the log is the kit's table, so
 * at 375 px each delivery is a card with its Attempts and Resend on screen, and a click anywhere on a row shows its
 * attempts; its statuses and triggers are in the merchant's words ("Delivered", "Retrying", "Test event"), not the
 * contract's ids ("pending", "test"), which the status filter keeps as its values.
 */
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { eventually } from '../helpers/wait.js';
import { startScreens, type ScreensHarness } from './screens.js';

const WIDTH = 375;

async function onScreen(control: Locator, what: string): Promise<void> {
  await control.waitFor();
  const box = await control.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= WIDTH, `${what} on a ${WIDTH} px screen: ${JSON.stringify(box)}`);
}

describe('dashboard.deliveryLog [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  it('names statuses and triggers in words, shows cards at 375 px, and a click on a row shows its attempts', async () => {
    const m = await s.d.merchant();
    await m.createEndpoint();
    await m.createPayment();
    await s.d.drain();
    // The receiver is down for the test event: its delivery waits for a retry.
    s.d.receiver.respond = (_req, res) => res.writeHead(500).end();
    const sent = await m.call('POST', '/v1/dashboard/webhook-endpoint/test', { body: { type: 'payment.succeeded' } });
    assert.equal(sent.status, 202);
    await eventually('the test delivery attempted once', async () => {
      await s.d.drain();
      const [latest] = await m.deliveries();
      return latest && latest.attemptCount > 0 ? latest : null;
    });
    s.d.receiver.respond = (_req, res) => res.writeHead(200).end('ok');
    const [retrying, delivered] = await m.deliveries();

    const { page, problems } = await s.open(m, '/dashboard/webhooks', { role: 'owner' });
    const retryingRow = page.locator(`tr[data-delivery="${retrying!.id}"]`);
    const deliveredRow = page.locator(`tr[data-delivery="${delivered!.id}"]`);
    await retryingRow.waitFor();
    const retryingText = await retryingRow.innerText();
    assert.ok(/Retrying/.test(retryingText) && /Test event/.test(retryingText), retryingText);
    assert.ok(!/pending|\btest\b/.test(retryingText), retryingText);
    const deliveredText = await deliveredRow.innerText();
    assert.ok(/Delivered/.test(deliveredText) && /\bEvent\b/.test(deliveredText), deliveredText);
    assert.ok(!/\bdelivered\b/.test(deliveredText), deliveredText);
    const filter = page.getByLabel('Status', { exact: true });
    assert.ok((await filter.textContent())!.includes('Sending or retrying'));

    // A click on the row, not on a control, shows the attempts.
    await deliveredRow.locator('td').first().click();
    await page.getByText('HTTP 200').waitFor();

    await page.setViewportSize({ width: WIDTH, height: 900 });
    await onScreen(retryingRow.getByRole('button', { name: /^Attempts/ }), 'Attempts');
    await onScreen(retryingRow.getByRole('button', { name: /^Resend/ }), 'Resend');
    await page.setViewportSize({ width: 1280, height: 900 });

    // The filter still sends the contract's id.
    await filter.selectOption({ label: 'Sending or retrying' });
    await eventually('only the retrying delivery listed', async () =>
      (await page.locator('tr[data-delivery]').count()) === 1 ? true : null,
    );
    await s.review(page, 'delivery-log');
    assert.deepEqual(problems, []);
  });
});
