/**
 * A Solana broadcast that an RPC node accepts and never forwards (issue 33 §2, the chaos run's stuck payments): the
 * watch sends the same signed bytes again while the blockhash is valid, so the payment succeeds instead of staying
 * `processing` until the blockhash expires. The fault sits between Paygate and the run's local Solana chain.
 */
import assert from 'node:assert/strict';
import { getBase64EncodedWireTransaction, getTransactionDecoder, partiallySignTransaction } from '@solana/kit';
import type { Chains } from '../../server/src/chains/index.js';
import { createSolanaClient, solanaRpcPool } from '../../server/src/chains/solana/client.js';
import { silentObserver } from '../../server/src/observability/observer.js';
import { sharedChains } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { expectJson } from './harness.js';
import { startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';

describe('gateway confirm: a Solana broadcast dropped by the RPC node', () => {
  let h: CheckoutHarness;
  let proxy: FaultProxy;
  before(async () => {
    const shared = await sharedChains();
    proxy = await startFaultProxy(shared.solana[0]!.config.rpcUrl);
    const solana = shared.solana.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 2_000, weight: 1 }] };
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

  it('confirm answers processing, the watch sends the same signed transaction again, and the payment succeeds once', async () => {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer as never, h.solanaTusd);
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    const fetched = await expectJson<{ actions: { data: { params: unknown[] } }[] }>(
      await h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
        body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
      }),
      200,
    );
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    const tx = getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
    const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));

    proxy.inject('sendTransaction', { kind: 'dropSend' }, 1);
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [signed] }),
      200,
    );
    assert.equal(accepted.status, 'processing');
    assert.equal(proxy.dropped.length, 1, 'the first broadcast was swallowed');

    const final = await h.settle(paymentId, 'succeeded');
    assert.equal(final.status, 'succeeded');
    const sends = proxy.calls.filter((c) => c.method === 'sendTransaction');
    assert.ok(sends.length >= 2, `the watch sent it again (${sends.length} sends)`);
    const wires = new Set(sends.map((c) => (c.params as [string])[0]));
    assert.equal(wires.size, 1, 'the same signed bytes every time, never a second signature');
  });
});
