/**
 * Issue 31 findings 5 and 1 (the merchant's side), in the shipped app: where Paygate holds a payment's money
 * (collected settlement) the payment page offers an on-chain refund, partial or full, saying its minimum, network fee
 * and destination before sending, with the API's own message when the rules refuse, and a claim link's cancellation;
 * never "Record a refund", which the API answers 409 for such a payment. A partly paid payment says what arrived and
 * the state of its refund. A viewer is shown no action. Before, the page offered only "Record a refund".
 */
import assert from 'node:assert/strict';
import { sharedChains } from '../helpers/chain.js';
import { collectedPayment, partlyPaidPayment, type HeldMoney } from './refundData.js';
import { startScreens, type ScreensHarness } from './screens.js';

describe('dashboard.paymentDetail.refunds [browser]', function () {
  let s: ScreensHarness;
  let chain: string;
  let tusd: string;
  before(async () => {
    const chains = await sharedChains();
    const local = chains.local!.evm;
    chain = local.config.caip2;
    tusd = `${chain}/erc20:${local.testUsd}`;
    s = await startScreens({
      chains,
      config: { PAYGATE_REFUND_MINIMUM: '1', PAYGATE_REFUND_NETWORK_FEE: '0.1' },
    });
  });
  after(() => s?.close());

  const held = async (): Promise<HeldMoney & { m: Awaited<ReturnType<ScreensHarness['d']['merchant']>> }> => {
    const m = await s.d.merchant();
    return { m, chain, tusd, merchantId: m.account.merchantId, now: s.d.harness.clock.now() };
  };

  it('a collected payment is refunded on chain in part by an owner, its claim link shown once and then cancelled', async () => {
    const h = await held();
    const paymentId = await collectedPayment(s.d.harness.runtime.db.knex, h);
    const { page, problems } = await s.open(h.m, `/dashboard/payments/${paymentId}`, { role: 'owner' });
    const refunds = page.getByRole('region', { name: 'Refunds', exact: true });
    await refunds.getByRole('button', { name: 'Refund on chain' }).click();
    assert.equal(await page.getByRole('button', { name: 'Record a refund' }).count(), 0, 'no 409 action offered');

    const dialog = page.getByRole('dialog', { name: 'Refund on chain' });
    const facts = (await dialog.innerText()).replace(/\s+/g, ' ');
    assert.match(facts, /Up to 12\.30 TUSD/, `what is left less the fee: ${facts}`);
    assert.match(facts, /Minimum 1\.00 TUSD/, `the minimum: ${facts}`);
    assert.match(facts, /Network fee 0\.10 TUSD, charged to you/, `the fee: ${facts}`);
    assert.match(facts, /one-time link/, `where it goes: ${facts}`);

    // Below the minimum: the API refuses, and its own sentence stands beside the field.
    await dialog.getByLabel('Amount in TUSD').fill('0.5');
    await dialog.getByRole('button', { name: 'Send refund' }).click();
    await dialog.getByText(/below the minimum on-chain refund/).waitFor();

    await dialog.getByLabel('Amount in TUSD').fill('5');
    await dialog.getByRole('button', { name: 'Send refund' }).click();
    const link = page.getByRole('dialog', { name: "The buyer's claim link" });
    assert.match(await link.locator('[data-secret]').innerText(), /\/refund#[A-Za-z0-9_-]{43}$/);
    await s.review(page, 'payment-refund-claim-link');
    await link.getByRole('button', { name: 'I have saved it' }).click();

    const list = refunds.getByRole('list', { name: 'On-chain refunds' });
    await list.getByText('Waiting for the buyer to claim').waitFor();
    // 5 of the 12.30 TUSD refundable: the heading says the payment is refunded in part, not refunded.
    await page.getByRole('heading', { level: 1 }).getByText('Partly refunded').waitFor();
    assert.match((await list.innerText()).replace(/\s+/g, ' '), /5\.00 TUSD on /);
    await list.getByRole('button', { name: 'Cancel claim link' }).click();
    await list.getByText('Link cancelled, not sent').waitFor();
    await page.getByText('Claim link cancelled.').waitFor();
    assert.equal(await list.getByRole('button', { name: 'Cancel claim link' }).count(), 0);
    // A cancelled link refunded nothing: the heading no longer says the payment is refunded.
    assert.doesNotMatch(await page.getByRole('heading', { level: 1 }).innerText(), /refunded/i);
    await s.review(page, 'payment-refund-cancelled');
    assert.deepEqual(problems, []);
  });

  it('a partly paid payment says what arrived of its amount and that it is to refund; a viewer sees no action', async () => {
    const h = await held();
    const paymentId = await partlyPaidPayment(s.d.harness.runtime.db.knex, h);
    const viewer = await s.open(h.m, `/dashboard/payments/${paymentId}`, { role: 'viewer' });
    const received = viewer.page.getByTestId('received');
    await received.waitFor();
    assert.match((await received.innerText()).replace(/\s+/g, ' '), /^5\.00 TUSD received of \$12\.50 To refund$/);
    for (const name of ['Refund what arrived', 'Refund on chain', 'Record a refund', 'Cancel payment'])
      assert.equal(await viewer.page.getByRole('button', { name }).count(), 0, `a viewer is offered no ${name}`);
    await s.review(viewer.page, 'payment-partly-paid');

    const owner = await s.open(h.m, `/dashboard/payments/${paymentId}`, { role: 'owner' });
    await owner.page.getByRole('button', { name: 'Refund what arrived' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'Refund what arrived' });
    assert.match(
      (await dialog.innerText()).replace(/\s+/g, ' '),
      /Up to 5\.00 TUSD .*Network fee 0 TUSD, none for you/,
    );
    await dialog.getByRole('button', { name: 'Send refund' }).click();
    await owner.page
      .getByRole('dialog', { name: "The buyer's claim link" })
      .getByRole('button', { name: 'I have saved it' })
      .click();
    await owner.page.getByTestId('received').getByText('Refunding').waitFor();
    assert.deepEqual([...viewer.problems, ...owner.problems], []);
  });
});
