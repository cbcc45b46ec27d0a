import assert from 'node:assert/strict';
import { useChainSnapshots } from '../helpers/chain.js';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { eventually } from '../helpers/wait.js';
import { assertOnlyOwnOrigin, shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

describe('hosted checkout page: EVM wallets', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('pays a gasless EIP-3009 option from an EIP-6963 wallet, shows the receipt, and the shop gets payment.succeeded', async () => {
    const buyer = await h.buyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, evm, requests } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    assert.equal(await page.getByTestId('fiat-amount').textContent(), '$12.50');
    await h.accessible(page, 'the open payment');
    await h.capture(page, 'open');

    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.waitFor();
    assert.match((await option.textContent()) ?? '', /No gas needed/);
    await h.accessible(page, 'the options');
    await h.capture(page, 'options');

    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    assert.equal(await page.getByTestId('paid-amount').textContent(), '12.50 TUSD');
    assert.equal(await page.getByTestId('announcer').textContent(), 'Payment successful');
    assert.ok(evm!.calls.includes('eth_signTypedData_v4'), 'the wallet signed the authorization');
    await h.accessible(page, 'the success view');
    await h.capture(page, 'succeeded');
    await h.fulfilled(paymentId);
    assertOnlyOwnOrigin(requests, h.server.url);

    // A buyer who comes back sees the receipt, and is not sent anywhere.
    await page.reload();
    await h.view(page, 'succeeded');
    await shows(page, 'Payment successful');
  });
});

async function fundTusd(h: CheckoutPageHarness, caip10: string): Promise<void> {
  await fundAccount(h.chains.local!, { account: caip10, asset: h.tusd, amount: '100000000' });
}

describe('hosted checkout page: EVM wallet decisions', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  async function connected(paymentId: string, options: Parameters<CheckoutPageHarness['open']>[1] = {}) {
    const buyer = options.evm?.buyer ?? (await h.buyer(2_000_000_000n));
    const opened = await h.open(paymentId, { ...options, evm: { buyer, ...options.evm } });
    await h.view(opened.page, 'open');
    await opened.page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    await opened.page.getByTestId('option').first().waitFor();
    return opened;
  }

  it('a rejected signature returns to the options with a plain message, and nothing is confirmed', async () => {
    const paymentId = await h.payment();
    const { page, evm } = await connected(paymentId);
    const held = evm!.holdNext('eth_signTypedData_v4');
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await held.asked;
    await shows(page, 'Confirm the payment in your wallet…');
    await h.accessible(page, 'waiting for the wallet');
    await h.capture(page, 'awaiting-wallet');
    held.reject();
    await shows(page, 'You declined the request in your wallet. Nothing was paid; choose an option to try again.');
    await page.getByTestId('option').filter({ hasText: 'TUSD' }).waitFor();
    const status = (await (await h.call('GET', `/v1/gateway/payment/${paymentId}/status`)).json()) as {
      status: string;
    };
    assert.equal(status.status, 'requires_action');
    assert.ok(!evm!.calls.includes('eth_sendTransaction'));
    await h.accessible(page, 'the rejected signature');
    await h.capture(page, 'rejected');
  });

  it('declined in the wallet, then cancelled: the cancelled view no longer shows the decline (issue 31 finding 11)', async () => {
    const paymentId = await h.payment();
    const { page, evm } = await connected(paymentId);
    const held = evm!.holdNext('eth_signTypedData_v4');
    await page
      .getByTestId('option')
      .filter({ hasText: 'TUSD' })
      .getByRole('button', { name: /^Pay 12\.50 TUSD/ })
      .click();
    await held.asked;
    held.reject();
    await shows(page, /You declined the request in your wallet/);
    await page.getByRole('button', { name: 'Cancel payment' }).click();
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await h.view(page, 'cancelled');
    assert.equal(await page.getByText(/You declined the request/).count(), 0);
    await h.capture(page, 'declined-then-cancelled');
  });

  it('no option: a buyer holding none of the accepted assets is told why, with what the payment accepts, and can refresh', async () => {
    const paymentId = await h.payment();
    const buyer = await h.buyer(0n, 0n);
    const { page } = await h.open(paymentId, { evm: { buyer } });
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    await page.getByTestId('no-options').waitFor();
    await shows(page, 'TUSD on Local');
    await shows(page, 'ETH on Local');
    await h.accessible(page, 'the no-option view');
    await h.capture(page, 'no-options');
    // Funded meanwhile (e.g. from an exchange, which takes longer than the server reuses balances), the buyer asks
    // again.
    await fundTusd(h, buyer.caip10);
    h.balancesAge();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByTestId('option').filter({ hasText: 'TUSD' }).waitFor();
  });

  it('a buyer who disconnects the site in the wallet is disconnected here: the options go, the connect button returns', async () => {
    const paymentId = await h.payment();
    const { page, evm } = await connected(paymentId);
    await evm!.revokeAccounts();
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).waitFor();
    assert.equal(await page.getByTestId('option').count(), 0);
  });

  it('a quote that goes stale is renewed by itself: a new ether option replaces it, and the buyer is told', async () => {
    const paymentId = await h.payment();
    const { page } = await connected(paymentId, { clock: true });
    const ether = page.getByTestId('option').filter({ hasText: 'ETH' });
    const before = await ether.getAttribute('data-option-id');
    // The server's default quote life is 300 s; both clocks move past it.
    h.clock.advance(301_000);
    await page.clock.fastForward(301_000);
    await shows(page, 'The price was renewed.');
    await eventually('a renewed ether option', async () => (await ether.getAttribute('data-option-id')) !== before);
  });

  it('data collection: the form opens in a dialog, IC_COMPLETE continues the payment, which succeeds', async () => {
    const paymentId = await h.payment({ amount: { unit: 'iso4217/USD', value: '100000' } });
    const { page } = await connected(paymentId);
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    assert.match((await option.textContent()) ?? '', /Information required/);
    await option.getByRole('button', { name: /^Pay 1,000\.00 TUSD/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Information required by Test merchant' });
    await dialog.waitFor();
    await h.accessible(page, 'the data-collection dialog');
    await h.capture(page, 'collect');
    const form = page.frameLocator('dialog iframe');
    await form.getByLabel('Full name').fill('Ada Lovelace');
    await form.getByLabel('Date of birth').fill('1815-12-10');
    await form.getByLabel('Place of residence (country)').fill('GB');
    await form.getByLabel('Place of residence (address)').fill('12 St James Square, London');
    await form.getByLabel('Terms of service').check();
    await form.getByRole('button', { name: 'Continue' }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    const stored = await h.runtime.db.knex('collected_data').where({ payment_id: paymentId }).first();
    assert.ok(stored, 'the form stored the data');
  });

  it('data collection: IC_ERROR stops the payment with the form message, and nothing is signed', async () => {
    const paymentId = await h.payment({ amount: { unit: 'iso4217/USD', value: '100000' }, expiresInSeconds: 600 });
    const { page, evm } = await connected(paymentId);
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 1,000\.00 TUSD/ }).click();
    const form = page.frameLocator('dialog iframe');
    await form.getByLabel('Full name').fill('Ada Lovelace');
    // The payment runs out while the buyer fills the form: the form is refused and says why.
    h.clock.advance(601_000);
    await form.getByLabel('Date of birth').fill('1815-12-10');
    await form.getByLabel('Place of residence (country)').fill('GB');
    await form.getByLabel('Place of residence (address)').fill('London');
    await form.getByLabel('Terms of service').check();
    await form.getByRole('button', { name: 'Continue' }).click();
    await shows(page, /The information could not be collected: .*expired/);
    await h.view(page, 'expired');
    assert.ok(!evm!.calls.includes('eth_signTypedData_v4'), 'nothing was signed');
    assert.equal(await page.getByRole('dialog').count(), 0);
    await h.accessible(page, 'the IC_ERROR message');
    await h.capture(page, 'collect-error');
  });

  it('a success with redirect URLs sends the buyer to successUrl with payment_id after 3 seconds', async () => {
    const shop = 'https://shop.example';
    const paymentId = await h.payment({ successUrl: `${shop}/thanks?order=8`, errorUrl: `${shop}/oops` });
    const { page, context } = await connected(paymentId);
    await context.route(`${shop}/**`, (route) => route.fulfill({ contentType: 'text/plain', body: 'the shop' }));
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.settleTo(paymentId, 'succeeded');
    // The countdown's own view is checked (axe, screenshots) on a paused clock in the cancel test; here the page's
    // time flows, and the navigation is what counts.
    await page.waitForURL(`${shop}/thanks?order=8&payment_id=${paymentId}`);
  });
});
