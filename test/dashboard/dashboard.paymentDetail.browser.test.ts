/**
 * The payment page in a real Chromium against a real server: the snapshot and its JSON view, the simulator's steps
 * (each a real transition whose webhook reaches the receiver), the timeline with deliveries and attempts, a refund
 * recorded, a cancellation, a refused step shown, and a viewer who gets no action.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/wait.js';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.paymentDetail [browser]', function () {
  let s: ScreensHarness;
  before(async () => {
    s = await startScreens();
  });
  after(() => s?.close());

  const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
  const statusOf = async (m: { call: (method: string, path: string) => Promise<Response> }, id: string) =>
    ((await (await m.call('GET', `/v1/merchant/payment/${id}`)).json()) as { status: string; refunded: unknown })
      .status;

  it('simulates a test payment to success, shows its timeline with deliveries, and records a refund', async () => {
    const m = await s.d.merchant();
    await m.createEndpoint();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await button(page, 'Simulate processing').waitFor();
    assert.match((await page.getByRole('heading', { level: 1 }).textContent())!, /\$12\.50/);
    await s.review(page, 'payment');

    await button(page, 'Simulate processing').click();
    await page.getByText('Simulated processing: the payment is now processing.').waitFor();
    await button(page, 'Simulate succeeded').click();
    await page.getByText('Simulated succeeded: the payment is now succeeded.').waitFor();
    assert.equal(await statusOf(m, paymentId), 'succeeded');
    await page.getByRole('region', { name: 'Succeeded' }).getByText(`test:${paymentId}`).waitFor();

    // The webhooks went out; the timeline shows each event with its delivery and attempt.
    await eventually('payment.succeeded delivered', async () => {
      await s.d.drain();
      return m.received().some((r) => JSON.parse(r.body).type === 'payment.succeeded');
    });
    await page.reload();
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('payment.succeeded', { exact: true }).waitFor();
    await timeline.getByText('payment.created', { exact: true }).waitFor();
    const delivery = timeline
      .locator('details')
      .filter({ hasText: /^Delivery whd_/ })
      .first();
    await delivery.getByText(/^Delivery whd_/).click();
    await delivery.getByText('HTTP 200').first().waitFor();

    // JSON view: the snapshot as the API answers it.
    await button(page, 'Show JSON').click();
    const json = JSON.parse((await page.getByTestId('payment-json').textContent())!) as Record<string, unknown>;
    assert.equal(json.payment_id, paymentId);
    assert.equal(json.status, 'succeeded');
    await button(page, 'Show details').click();

    // A refund recorded with a reason.
    await button(page, 'Record a refund').click();
    await page
      .getByRole('dialog')
      .getByLabel(/Reason/)
      .fill('Goods returned');
    await page.getByRole('dialog').getByRole('button', { name: 'Record refund' }).click();
    await page.getByText('Refund recorded: the payment is now succeeded.').waitFor();
    await page.getByRole('region', { name: 'Refunded' }).getByText('Goods returned').waitFor();
    assert.equal(await button(page, 'Record a refund').count(), 0, 'a refunded payment offers no second refund');
    assert.deepEqual(problems, []);
  });

  it('cancels a waiting payment with a reason; a finished payment offers no step', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await button(page, 'Cancel payment').click();
    await page
      .getByRole('dialog')
      .getByLabel(/Reason/)
      .fill('Customer changed their mind');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByText('Cancelled: the payment is now cancelled.').waitFor();
    assert.equal(await statusOf(m, paymentId), 'cancelled');
    await page.getByRole('region', { name: 'Cancelled' }).getByText('Customer changed their mind').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Simulate/ }).count(), 0);
    assert.deepEqual(problems, []);
  });

  it('shows a refused step: the payment changed elsewhere, the server says why', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await button(page, 'Simulate processing').waitFor();
    // Cancelled through the API behind the page's back: the page still offers "processing", the server refuses it.
    const cancelled = await m.call('POST', `/v1/merchant/payment/${paymentId}/cancel`, { body: {} });
    assert.equal(cancelled.status, 200);
    await button(page, 'Simulate processing').click();
    const alert = page.getByRole('region', { name: 'Actions' }).getByRole('alert');
    await alert.waitFor();
    assert.ok((await alert.textContent())!.length > 0);
    assert.equal(await statusOf(m, paymentId), 'cancelled');
  });

  it('a viewer sees the payment and no action', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`, { role: 'viewer' });
    await page.getByRole('region', { name: 'Timeline' }).waitFor();
    await page.getByText(paymentId).first().waitFor();
    assert.equal(await page.getByRole('button', { name: /^Simulate|^Cancel payment|^Record a refund/ }).count(), 0);
    assert.deepEqual(problems, []);
  });

  it('a test payment paid to a deposit address (collected mode) is not offered a settlement the server refuses', async () => {
    const m = await s.d.merchant();
    const paymentId = await m.createPayment();
    const { page, problems } = await s.open(m, `/dashboard/payments/${paymentId}`);
    await button(page, 'Simulate processing').click();
    await page.getByText('Simulated processing: the payment is now processing.').waitFor();
    // Paid on chain to its deposit address: succeeded with a real transaction, waiting for the payout to settle it.
    const knex = s.d.harness.runtime.db.knex;
    const row = (await knex('payments').where({ id: paymentId }).first('processing')) as { processing: string };
    const chain = (JSON.parse(row.processing) as { chain_caip2: string }).chain_caip2;
    await knex('deposit_addresses').insert({
      chain_caip2: chain,
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      payment_id: paymentId,
      derivation_index: 0,
      created_at: Date.now(),
    });
    await knex('payments')
      .where({ id: paymentId })
      .update({
        status: 'succeeded',
        success: JSON.stringify({ succeeded_at: new Date().toISOString(), tx_id: `0x${'7c'.repeat(32)}` }),
        settled: null,
      });
    const refused = await m.call('POST', `/v1/merchant/test/payment/${paymentId}/simulate`, {
      body: { to: 'settled' },
    });
    assert.equal(refused.status, 409, 'the server refuses a settlement by hand of a payment paid to a deposit address');
    await page.reload();
    await button(page, 'Record a refund').waitFor();
    assert.equal(await button(page, 'Simulate settled').count(), 0);
    assert.deepEqual(problems, []);
  });
});
