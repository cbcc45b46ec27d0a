import assert from 'node:assert/strict';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { createSolanaClient, solanaRpcPool } from '../../server/src/chains/solana/client.js';
import { silentObserver } from '../../server/src/observability/observer.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { eventually } from '../helpers/wait.js';
import { expectError } from './harness.js';
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

describe('gateway getPaymentOptions with Solana unreachable', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let proxy: FaultProxy;

  before(async () => {
    const shared = await sharedChains();
    const solanaRpcUrl = shared.solana[0]!.config.rpcUrl;
    proxy = await startFaultProxy(solanaRpcUrl);
    const solana = shared.solana.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 1_000, weight: 1 }] };
      const pool = solanaRpcPool(config, silentObserver, { breakerOpenMs: 200, backoffMs: 20 });
      return { ...c, config, pool, rpc: createSolanaClient(config, silentObserver, pool) };
    });
    const chains: Chains = { ...shared, solana };
    h = await startCheckoutHarness({ chains });
  });
  after(async () => {
    await h.close();
    await proxy.close();
  });

  it('answers the EVM options and names Solana, whose options return once it answers', async () => {
    const evmBuyer = await h.buyer(20_000_000n, 10n ** 18n);
    const solanaBuyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const accounts = [evmBuyer.caip10, solanaBuyer.caip10];

    proxy.inject('*', { kind: 'reset' });
    const down = await h.options(paymentId, accounts);
    assert.ok(down.options!.length > 0 && down.options!.every((o) => o.account === evmBuyer.caip10));
    assert.deepEqual(down.unavailable, [{ chain: h.solana.caip2, reason: 'network_unavailable' }]);

    proxy.heal();
    const up = await eventually('Solana back in the options', async () => {
      const answer = await h.options(paymentId, accounts);
      return answer.unavailable?.length === 0 && answer;
    });
    assert.ok(
      up.options!.some((o) => o.account === solanaBuyer.caip10),
      'the Solana option is offered again',
    );
  });

  it('the Solana Pay transaction request answers 503 with Retry-After, not "holds no accepted asset", while Solana is down', async () => {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    proxy.inject('*', { kind: 'reset' });
    try {
      const res = await h.call('POST', `/v1/gateway/payment/${paymentId}/solana-pay`, {
        body: { account: buyer.signer.address },
        headers: { 'Api-Key': null },
      });
      assert.equal(res.headers.get('retry-after'), '5');
      const message = await expectError(res, 503, 'internal_error');
      assert.match(message, /temporarily unavailable/);
    } finally {
      proxy.heal();
    }
  });
});
