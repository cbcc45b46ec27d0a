/**
 * The final views are not dead ends (issue 31 finding 12): without redirect URLs they say what was paid (the fiat
 * amount under its right name, the order reference, a transaction id to copy, the time with its zone), and the
 * expired view links back to the merchant when it knows where. A partly paid payment that ends says what was received
 * and what happens to it (finding 1).
 */
import assert from 'node:assert/strict';
import { newId } from '../../server/src/ids.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { eventually } from '../helpers/wait.js';
import { shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

const SHOP = 'https://shop.example';

describe('hosted checkout page: final views', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  const referenceOf = async (paymentId: string): Promise<string> =>
    (await h.runtime.db.knex('payments').where({ id: paymentId }).first()).reference_id as string;

  it('a succeeded payment without redirect URLs shows the fiat amount paid, the order reference, a copyable transaction id and the time with its zone', async () => {
    await h.setMode('direct');
    const paymentId = await h.payment();
    await h.simulate(paymentId, 'processing', 'succeeded');
    const { page, context } = await h.open(paymentId);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url });
    await h.view(page, 'succeeded');
    const main = (await page.getByRole('main').textContent()) ?? '';
    assert.doesNotMatch(main, /Amount due/);
    assert.match(main, /Amount paid: \$12\.50/);
    await shows(page, `Order ${await referenceOf(paymentId)}`);
    assert.match((await page.getByTestId('paid-time').textContent()) ?? '', /\b(UTC|GMT)/);
    await page.getByRole('button', { name: 'Copy the transaction id' }).click();
    await shows(page, 'Transaction id copied.');
    const txId = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(await page.getByTestId('tx-id').getAttribute('title'), txId);
    await h.accessible(page, 'the receipt without redirect');
    await h.capture(page, 'succeeded-no-redirect');
  });

  it('an expired payment with return URLs, opened later, links back to the merchant', async () => {
    await h.setMode('direct');
    const errorUrl = `${SHOP}/oops?order=9`;
    const paymentId = await h.payment({ successUrl: `${SHOP}/thanks`, errorUrl, expiresInSeconds: 60 });
    await h.settleTo(paymentId, 'expired');
    const { page } = await h.open(paymentId);
    await h.view(page, 'expired');
    assert.equal(
      await page.getByRole('link', { name: 'Back to Test merchant' }).getAttribute('href'),
      `${errorUrl}&payment_id=${paymentId}`,
    );
    assert.equal(await page.getByTestId('redirect').count(), 0, 'opened later: no automatic redirect');
    await h.accessible(page, 'the expired view with a way back');
    await h.capture(page, 'expired-back');
  });

  it('a partly paid payment that expires says what was received and that the merchant refunds it (issue 31 finding 1)', async () => {
    await h.setMode('collected');
    const paymentId = await h.payment({ expiresInSeconds: 120 });
    // The payment's deposit addresses, as the page would have them given out, then 5 TUSD arriving at one.
    assert.equal((await h.call('GET', `/v1/gateway/payment/${paymentId}/deposit`)).status, 200);
    const address = (await h.runtime.db
      .knex('deposit_addresses')
      .where({ payment_id: paymentId, chain_caip2: 'eip155:31337' })
      .first()) as { address: string };
    await h.runtime.db.knex('deposit_transfers').insert({
      id: newId.depositTransfer(),
      chain_caip2: 'eip155:31337',
      asset_caip19: h.tusd,
      address: address.address,
      payment_id: paymentId,
      tx_id: `0x${'cd'.repeat(32)}`,
      position: 0,
      from_address: null,
      amount: '5000000',
      block_number: 1,
      block_hash: null,
      block_time: null,
      state: 'seen',
      detected_at: h.clock.now(),
    });
    const { page } = await h.open(paymentId, { clock: true });
    await h.view(page, 'open');
    await eventually(
      'the page to show what was received',
      async () => (await page.getByTestId('deposit-progress').count()) > 0,
    );
    h.clock.advance(121_000);
    await page.clock.fastForward(125_000);
    await h.view(page, 'expired');
    const text = (await page.getByRole('main').textContent()) ?? '';
    assert.match(text, /5\.00 TUSD on Local chain \(anvil\) arrived before the payment expired\./);
    assert.match(text, /Test merchant will refund it/);
    assert.doesNotMatch(text, /Nothing was paid/);
    await h.accessible(page, 'the expired view of a partly paid payment');
    await h.capture(page, 'expired-partly-paid');
  });
});
