import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { eventually } from '../helpers/wait.js';
import { startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** Issue 33 §1 (decisions.md §27.9): one network's outage shows on the page as that network, not as a failed payment. */
describe('hosted checkout page: one network unreachable', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  let proxy: FaultProxy;
  before(async () => {
    const shared = await sharedChains();
    proxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 1_000, weight: 1 }] };
      // A short breaker, so the healed endpoint's half-open probe comes before the buyer's refresh.
      const clients = createEvmClients(config, { pollingIntervalMs: 50, pool: { breakerOpenMs: 200, backoffMs: 20 } });
      return { ...c, config, clients };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCheckoutPage({ chains });
  });
  after(async () => {
    await h?.close();
    await proxy?.close();
  });

  it('shows "network temporarily unavailable" for the failing network beside the other network\u2019s options, and its options after a refresh once it answers', async () => {
    const evmBuyer = await h.buyer(20_000_000n, 10n ** 18n);
    const buyer = await h.solanaBuyer(100_000_000n);
    const paymentId = await h.payment();
    proxy.inject('*', { kind: 'serverError', status: 503 });
    const { page } = await h.open(paymentId, { evm: { buyer: evmBuyer }, solana: { signer: buyer.signer } });
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    await page.getByRole('button', { name: 'Connect Test Solana Wallet' }).click();
    await page.locator('[data-testid="option"][data-account^="solana:"]').first().waitFor();
    const notice = page.getByTestId('unavailable-networks');
    await notice.waitFor();
    assert.match((await notice.textContent()) ?? '', /network temporarily unavailable/);
    assert.equal(await notice.locator('li').first().getAttribute('data-chain'), 'eip155:31337');
    assert.equal(await page.locator('[data-testid="option"][data-account^="eip155:"]').count(), 0);
    await h.accessible(page, 'one network unavailable');
    await h.capture(page, 'network-unavailable');

    proxy.heal();
    // The endpoint's breaker may still be open for a moment: the buyer refreshes until the network answers.
    const evmOptions = page.locator('[data-testid="option"][data-account^="eip155:"]');
    await eventually('the EVM options back after a refresh', async () => {
      if ((await evmOptions.count()) > 0) return true;
      const refresh = notice.getByRole('button', { name: 'Refresh' });
      if (await refresh.isVisible()) await refresh.click();
      return false;
    });
    assert.equal(await page.getByTestId('unavailable-networks').count(), 0);
    assert.ok((await page.locator('[data-testid="option"][data-account^="solana:"]').count()) > 0);
  });
});
