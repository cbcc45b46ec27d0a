import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { withDirectTusd } from '../gateway/checkout.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { pressByKeyboard, shows, startCheckoutPage, type CheckoutPageHarness } from './page.js';

const EXPLORER = 'https://explorer.example/tx/{txId}';

/** TUSD as a plain ERC-20 (a direct transfer the wallet sends), and an explorer for the local chain. */
function directWithExplorer(chains: Chains): Chains {
  const direct = withDirectTusd(chains);
  return { ...direct, evm: direct.evm.map((c) => ({ ...c, config: { ...c.config, explorerTxUrl: EXPLORER } })) };
}

describe('hosted checkout page: direct transfers', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage({ chains: directWithExplorer(await sharedChains()) });
  });
  after(() => h?.close());

  it('pays by a transfer the wallet sends, with the keyboard only: processing links the transaction to the explorer, then succeeds', async () => {
    const buyer = await h.buyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, evm } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    await pressByKeyboard(page, /Connect Test EVM Wallet/);
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.waitFor();
    assert.doesNotMatch((await option.textContent()) ?? '', /No gas needed/, 'the buyer pays the gas of a transfer');
    await pressByKeyboard(page, /^Pay 12\.50 TUSD/);

    await h.view(page, 'processing');
    const link = page.getByTestId('tx-link');
    await link.waitFor();
    const sent = evm!.requests.find((r) => r.method === 'eth_sendTransaction');
    assert.ok(sent, 'the wallet sent the transfer');
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^https:\/\/explorer\.example\/tx\/0x[0-9a-f]{64}$/);
    await h.accessible(page, 'the processing view');
    await h.capture(page, 'processing');

    const final = await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    assert.equal(href, EXPLORER.replace('{txId}', final.info!.txId));
    assert.equal(await page.getByTestId('tx-link').getAttribute('href'), href);
    await h.fulfilled(paymentId);
  });

  it('a confirm that fails after the wallet sent the transfer is sent again, never signed again, and the payment succeeds', async () => {
    const buyer = await h.buyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, context, evm } = await h.open(paymentId, { evm: { buyer } });
    const confirmUrl = `${h.server.url}/v1/gateway/payment/${paymentId}/confirm**`;
    // The gateway is unreachable for the confirm (and the SDK's own retries of it).
    await context.route(confirmUrl, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'internal_error', message: 'Service unavailable.' }),
      }),
    );
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.view(page, 'processing');
    await shows(page, /Your wallet has signed, but the payment could not be confirmed yet/);
    await h.accessible(page, 'a confirm to send again');
    await h.capture(page, 'confirm-again');
    await context.unroute(confirmUrl);
    await page.getByRole('button', { name: 'Confirm again' }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    assert.equal(evm!.calls.filter((m) => m === 'eth_sendTransaction').length, 1, 'the transfer was sent once');
  });

  it('switches the wallet to the payment chain first, adding it when the wallet does not know it (4902)', async () => {
    const buyer = await h.buyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, evm } = await h.open(paymentId, { evm: { buyer, chainId: 1 } });
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.view(page, 'processing');
    const asked = evm!.calls.filter((m) => m.startsWith('wallet_'));
    assert.deepEqual(asked.slice(0, 3), [
      'wallet_switchEthereumChain',
      'wallet_addEthereumChain',
      'wallet_switchEthereumChain',
    ]);
    assert.equal(evm!.chainId, h.local.config.chainId);
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
  });
});
