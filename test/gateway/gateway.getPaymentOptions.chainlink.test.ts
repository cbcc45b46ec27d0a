import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { sharedChains, useChainSnapshots } from '../helpers/chain.js';
import { deployFeed } from '../quotes/feeds.js';
import { LOCAL, startCheckoutHarness } from './checkout.js';

/** The local chain priced by a Chainlink feed deployed on it, instead of the static table. */
function withEthUsdFeed(chains: Chains, address: `0x${string}`, heartbeatS: number): Chains {
  return {
    ...chains,
    evm: chains.evm.map((c) => ({ ...c, config: { ...c.config, priceFeeds: { 'ETH/USD': { address, heartbeatS } } } })),
  };
}

describe('gateway getPaymentOptions: priced by a Chainlink feed on anvil', () => {
  useChainSnapshots();

  it('prices the native coin from the feed, rounded up, with a quote expiry; a stale round yields no option', async () => {
    const local = (await sharedChains()).local!.evm;
    const feed = await deployFeed(local, 8, 'ETH / USD');
    const chainNow = (await local.clients.public.getBlock()).timestamp;
    // 2999.99999999 USD per ETH: 12.50 USD is 0.00416666666805… ETH, rounded up to the wei.
    await feed.setAnswer(299_999_999_999n, chainNow);
    const h = await startCheckoutHarness({ chains: withEthUsdFeed(await sharedChains(), feed.address, 3600) });
    try {
      const buyer = await h.buyer();
      const paymentId = await h.createPayment({ expiresInSeconds: 3 * 3600 });
      const option = await h.optionFor(paymentId, buyer, `${LOCAL}/slip44:60`);
      const expected = (1250n * 10n ** 18n * 10n ** 8n + 299_999_999_999n * 100n - 1n) / (299_999_999_999n * 100n);
      assert.equal(option.amount.value, expected.toString());
      assert.equal(option.expiresAt, Math.floor(h.clock.now() / 1000) + 300);
      // The pegged stablecoin needs no rate.
      assert.equal((await h.optionFor(paymentId, buyer, h.tusd)).expiresAt, null);

      // An hour and a bit later the round is older than its heartbeat: no price, so no ether option.
      h.clock.advance(3601_000);
      const later = await h.options(paymentId, [buyer.caip10]);
      assert.deepEqual(
        later.options!.map((o) => o.amount.unit),
        [`caip19/${h.tusd}`],
      );
    } finally {
      await h.close();
    }
  });
});
