/**
 * The hosted checkout's "Pay from any wallet or exchange" view (web/src/checkout/views/DepositPanel.tsx) for a merchant in
 * collected settlement: each network and asset with the exact amount, the payment's deposit address, copy buttons
 * and a QR code of the payment URI; a partial payment (deposit_transfers rows written directly, as detection would)
 * shows what was received and what is left, read again through the page's status poll.
 */
import assert from 'node:assert/strict';
import { newId } from '../../server/src/ids.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { eventually } from '../helpers/wait.js';
import { expectError } from '../gateway/harness.js';
import { assertOnlyOwnOrigin, shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

describe('hosted checkout page: deposits of a collected-mode payment', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  const addressOf = async (paymentId: string, chain: string): Promise<string> =>
    (await h.runtime.db.knex('deposit_addresses').where({ payment_id: paymentId, chain_caip2: chain }).first())
      .address as string;

  it('get deposit options: the view lists each network with amount, address, copy buttons and a QR; a partial payment shows what is left', async () => {
    await h.setMode('collected');
    const paymentId = await h.payment();
    const { page, context, requests } = await h.open(paymentId);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url });
    await h.view(page, 'open');
    await page.getByTestId('deposits').waitFor();
    await shows(page, 'Pay from any wallet or exchange');
    const entries = page.getByTestId('deposit');
    assert.equal(await entries.count(), 2);

    const evm = entries.and(page.locator('[data-chain="eip155:31337"]'));
    const solana = entries.and(page.locator(`[data-chain="${h.solana.caip2}"]`));
    // One entry open at a time: the first one, until the buyer opens another.
    const isOpen = (entry: typeof evm) => entry.locator('details').evaluate((d) => (d as HTMLDetailsElement).open);
    assert.deepEqual([await isOpen(entries.first()), await isOpen(entries.last())], [true, false]);
    if (!(await isOpen(evm))) await evm.locator('summary').click();
    const address = await addressOf(paymentId, 'eip155:31337');
    assert.equal(await evm.getByTestId('deposit-address').textContent(), address);
    assert.equal(await evm.getByTestId('deposit-amount').textContent(), '12.5 TUSD');
    assert.equal(
      await evm.getByTestId('deposit-uri').getAttribute('href'),
      `ethereum:${h.local.testUsd}@31337/transfer?address=${address}&uint256=12500000`,
    );
    assert.equal(await evm.getByRole('img', { name: /QR code to send TUSD/ }).count(), 1);

    await evm.getByRole('button', { name: /Copy the address/ }).click();
    await shows(page, 'Address copied.');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), address);
    await evm.getByRole('button', { name: /Copy the amount/ }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '12.5');

    await solana.locator('summary').click();
    await eventually('opening the Solana entry to close the EVM one', async () => !(await isOpen(evm)));
    assert.equal(await isOpen(solana), true);
    const solanaAddress = await addressOf(paymentId, h.solana.caip2);
    assert.equal(
      await solana.getByTestId('deposit-uri').getAttribute('href'),
      `solana:${solanaAddress}?amount=12.5&spl-token=${h.solana.mints.tusd.address}&label=Test%20merchant`,
    );
    await h.accessible(page, 'the deposit view');
    await h.capture(page, 'deposit-open');

    // 5 TUSD arrives at the EVM deposit address (as detection records it).
    await h.runtime.db.knex('deposit_transfers').insert({
      id: newId.depositTransfer(),
      chain_caip2: 'eip155:31337',
      asset_caip19: h.tusd,
      address,
      payment_id: paymentId,
      tx_id: `0x${'ab'.repeat(32)}`,
      position: 0,
      from_address: null,
      amount: '5000000',
      block_number: 1,
      block_hash: null,
      block_time: null,
      state: 'seen',
      detected_at: h.clock.now(),
    });
    // The status poll holds each request up to 20 s; the panel reads again when it answers.
    await eventually(
      'the page to show what is left to pay',
      async () => (await evm.getByTestId('deposit-progress').count()) > 0,
      { timeoutMs: 45_000 },
    );
    assert.match(
      (await evm.getByTestId('deposit-progress').textContent()) ?? '',
      /Received 5\.00 TUSD on .+; 7\.50 TUSD left to pay\./,
    );
    assert.equal(await evm.getByTestId('deposit-amount').textContent(), '7.5 TUSD');
    assert.equal(await solana.getByTestId('deposit-progress').count(), 0);
    // Issue 31 finding 1: money has arrived, so Cancel is no longer offered; the page says why and what happens.
    await eventually(
      'Cancel to go once money has arrived',
      async () => (await page.getByRole('button', { name: 'Cancel payment' }).count()) === 0,
    );
    await shows(page, 'Part of the amount has arrived, so this payment can no longer be cancelled.');
    await h.accessible(page, 'the partially paid deposit view');
    await h.capture(page, 'deposit-partial');
    // No CDN: the QR codes are drawn in the page.
    assertOnlyOwnOrigin(requests, h.server.url);
  });

  it('copy a deposit address: the French page says "Adresse copiée."', async () => {
    await h.setMode('collected');
    const paymentId = await h.payment();
    const { page, context } = await h.open(paymentId, { lang: 'fr' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url });
    await h.view(page, 'open');
    await page.getByTestId('deposits').waitFor();
    await page
      .getByRole('button', { name: /Copier l’adresse/ })
      .first()
      .click();
    await shows(page, 'Adresse copiée.');
    await page
      .getByRole('button', { name: /Copier le montant/ })
      .first()
      .click();
    await shows(page, 'Montant copié.');
  });

  it('get deposit options: a merchant paid directly shows no deposit view', async () => {
    await h.setMode('direct');
    const paymentId = await h.payment();
    const { page } = await h.open(paymentId);
    await h.view(page, 'open');
    // The page's own deposit read has been answered (a resource timing entry exists once its response ended).
    await eventually('the page to read its deposit options', () =>
      page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .some((e) => /\/deposit$/.test(e.name) && (e as PerformanceResourceTiming).responseEnd > 0),
      ),
    );
    await expectError(await h.call('GET', `/v1/gateway/payment/${paymentId}/deposit`), 409, 'invalid_state');
    await shows(page, 'Pay with a phone');
    assert.equal(await page.getByTestId('deposits').count(), 0);
  });
});
