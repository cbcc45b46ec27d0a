import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { eventually } from '../helpers/wait.js';
import { LOCAL, startCheckoutHarness, type CheckoutHarness } from './checkout.js';

/**
 * Issue 33 §1 (decisions.md §27.9): when every RPC endpoint of one chain fails, the options of the other chains
 * still answer and the failing chain is named, and its options come back once it answers, without a restart.
 */
describe('gateway getPaymentOptions with one network unreachable', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let proxy: FaultProxy;

  before(async () => {
    const shared = await sharedChains();
    proxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 1_000, weight: 1 }] };
      // A short breaker, so the healed endpoint's half-open probe comes within the test's wait.
      const clients = createEvmClients(config, { pollingIntervalMs: 50, pool: { breakerOpenMs: 200, backoffMs: 20 } });
      return { ...c, config, clients };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCheckoutHarness({ chains });
  });
  after(async () => {
    await h.close();
    await proxy.close();
  });

  it('answers the healthy network\u2019s options and names the unreachable one, which returns once it answers', async () => {
    const evmBuyer = await h.buyer(20_000_000n, 10n ** 18n);
    const solanaBuyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const accounts = [evmBuyer.caip10, solanaBuyer.caip10];

    proxy.inject('*', { kind: 'serverError', status: 503 });
    const down = await h.options(paymentId, accounts);
    assert.deepEqual(
      down.options!.map((o) => o.account),
      [solanaBuyer.caip10],
      'the Solana option is still offered',
    );
    assert.deepEqual(down.unavailable, [{ chain: LOCAL, reason: 'network_unavailable' }]);
    assert.ok(
      proxy.calls.some((c) => c.fault === 'serverError'),
      'the EVM reads went through the failing proxy',
    );

    proxy.heal();
    const up = await eventually('the EVM network back in the options', async () => {
      const answer = await h.options(paymentId, accounts);
      return answer.unavailable?.length === 0 && answer;
    });
    assert.deepEqual(
      [...new Set(up.options!.map((o) => o.account))].sort(),
      [evmBuyer.caip10, solanaBuyer.caip10].sort(),
      'both networks offer options again',
    );
  });
});
