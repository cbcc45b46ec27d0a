/**
 * A relayer transaction that every RPC endpoint lost (one accepted it and never forwarded it, the other did not take
 * it): the buyer's authorization is still unused and valid, so the watch relays it again instead of leaving the
 * payment `processing` until it fails as "dropped" ten minutes later (the chaos run's stuck EVM gasless payments,
 * decisions.md §27.23). The authorization can be used once, so a second relay can never pay twice.
 */
import assert from 'node:assert/strict';
import { parseEventLogs } from 'viem';
import type { Chains } from '../../server/src/chains/index.js';
import { eip3009Abi } from '../../server/src/chains/eip155/abis.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { startFaultProxy, type FaultProxy } from '../helpers/faultProxy.js';
import { receiptOf } from '../helpers/wait.js';
import { expectJson } from './harness.js';
import { signAction, startCheckoutHarness, type CheckoutHarness, type StatusAnswer } from './checkout.js';

describe('gateway confirm: an EVM relayer transaction the endpoints lost', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let proxy: FaultProxy;

  before(async () => {
    const shared = await sharedChains();
    proxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: proxy.url, timeoutMs: 2_000, weight: 1 }] };
      return { ...c, config, clients: createEvmClients(config, { pollingIntervalMs: 50 }) };
    });
    const chains: Chains = { ...shared, evm };
    h = await startCheckoutHarness({ chains });
  });
  after(async () => {
    await h.close();
    await proxy.close();
  });

  it('the watch relays the authorization again and the payment succeeds once, its authorization used once', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    proxy.inject('eth_sendRawTransaction', { kind: 'dropSend' }, 1);
    const accepted = await expectJson<StatusAnswer>(
      await h.confirm(paymentId, { optionId: option.id, results: [await signAction(buyer, option)] }),
      200,
    );
    assert.equal(accepted.status, 'processing');

    const final = await h.settle(paymentId, 'succeeded');
    assert.equal(final.status, 'succeeded');
    assert.equal(proxy.dropped.length, 1, 'the first relay was swallowed');
    const payment = await h.runtime.db.knex('payment_claims').where({ payment_id: paymentId }).first();
    const receipt = await receiptOf(h.local.clients.public, payment.tx_id);
    const uses = parseEventLogs({ abi: eip3009Abi, eventName: 'AuthorizationUsed', logs: receipt.logs });
    assert.equal(uses.length, 1, 'the claim names the transaction that used the authorization');
    const events = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.succeeded' });
    assert.equal(events.length, 1, 'one success');
  });
});
