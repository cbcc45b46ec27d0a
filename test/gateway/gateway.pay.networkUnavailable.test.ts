import assert from 'node:assert/strict';
import {
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type Transaction,
} from '@solana/kit';
import type { Chains } from '../../server/src/chains/index.js';
import { createEvmClients } from '../../server/src/chains/eip155/client.js';
import { createSolanaClient, solanaRpcPool } from '../../server/src/chains/solana/client.js';
import { silentObserver } from '../../server/src/observability/observer.js';
import { sharedChains, sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../helpers/faultProxy.js';
import { eventually } from '../helpers/wait.js';
import { expectError, expectJson } from './harness.js';
import {
  signAction,
  startCheckoutHarness,
  type CheckoutHarness,
  type PaymentOption,
  type StatusAnswer,
} from './checkout.js';

/**
 * Issue 33, decisions.md §27.18: while every RPC endpoint of the payment's chain fails, confirm, fetch and the
 * Solana Pay transaction request answer 503
 * `internal_error` with `Retry-After` (not 500), the payment is left as it was, and the same request succeeds once
 * an endpoint answers again.
 */
describe('gateway confirm, fetch and Solana Pay while the chain\u2019s RPC endpoints fail', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let evmProxy: FaultProxy;
  let solanaProxy: FaultProxy;

  before(async () => {
    const shared = await sharedChains();
    evmProxy = await startFaultProxy((await sharedLocalChain()).config.rpcUrl);
    solanaProxy = await startFaultProxy(shared.solana[0]!.config.rpcUrl);
    const evm = shared.evm.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: evmProxy.url, timeoutMs: 1_000, weight: 1 }] };
      const clients = createEvmClients(config, { pollingIntervalMs: 50, pool: { breakerOpenMs: 200, backoffMs: 20 } });
      return { ...c, config, clients };
    });
    const solana = shared.solana.map((c) => {
      const config = { ...c.config, rpcEndpoints: [{ url: solanaProxy.url, timeoutMs: 1_000, weight: 1 }] };
      const pool = solanaRpcPool(config, silentObserver, { breakerOpenMs: 200, backoffMs: 20 });
      return { ...c, config, pool, rpc: createSolanaClient(config, silentObserver, pool) };
    });
    const chains: Chains = { ...shared, evm, solana };
    h = await startCheckoutHarness({ chains });
  });
  afterEach(() => {
    evmProxy.heal();
    solanaProxy.heal();
  });
  after(async () => {
    await h.close();
    await evmProxy.close();
    await solanaProxy.close();
  });

  const status = async (id: string) =>
    (await expectJson<StatusAnswer>(await h.call('GET', `/v1/gateway/payment/${id}/status`), 200)).status;

  async function expectUnavailable(res: Response): Promise<void> {
    const message = await expectError(res, 503, 'internal_error');
    assert.ok(Number(res.headers.get('retry-after')) > 0, 'a Retry-After in seconds');
    assert.match(message, /temporarily unavailable/);
  }

  /** A healed endpoint answers again after the short breaker: the first retries may still find it open. */
  const afterHealing = (send: () => Promise<Response>): Promise<Response> =>
    eventually('the request answered once the endpoint heals', async () => {
      const res = await send();
      if (res.status !== 503) return res;
      await res.arrayBuffer();
      return false;
    });

  it('an EVM gasless confirm answers 503 with Retry-After while every endpoint fails, then the same confirm succeeds', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const body = { optionId: option.id, results: [await signAction(buyer, option)] };

    evmProxy.inject('*', { kind: 'serverError', status: 502 });
    await expectUnavailable(await h.confirm(paymentId, body));
    assert.equal(await status(paymentId), 'requires_action', 'the payment is left as it was');

    evmProxy.heal();
    const accepted = await expectJson<StatusAnswer>(await afterHealing(() => h.confirm(paymentId, body)), 200);
    assert.equal(accepted.status, 'processing');
    const final = await h.settle(paymentId, 'succeeded');
    assert.equal(final.status, 'succeeded');
    const processing = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
    assert.equal(processing.length, 1, 'one relay');
  });

  it('an EVM gasless confirm answers 503 under timeouts, resets, 429, malformed answers and wrong ids alike', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer, h.tusd);
    const body = { optionId: option.id, results: [await signAction(buyer, option)] };
    const faults: Fault[] = [
      { kind: 'timeout' },
      { kind: 'reset' },
      { kind: 'rateLimit', retryAfterS: 1 },
      { kind: 'malformed' },
      { kind: 'wrongId' },
    ];
    for (const fault of faults) {
      evmProxy.heal();
      evmProxy.inject('*', fault);
      await expectUnavailable(await h.confirm(paymentId, body));
    }
    assert.equal(await status(paymentId), 'requires_action', 'the payment is left as it was');
    evmProxy.heal();
    const accepted = await expectJson<StatusAnswer>(await afterHealing(() => h.confirm(paymentId, body)), 200);
    assert.equal(accepted.status, 'processing');
  });

  async function solanaReady() {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const option = await h.optionFor(paymentId, buyer as never, h.solanaTusd);
    return { buyer, paymentId, option };
  }

  const fetchBuild = (paymentId: string, option: PaymentOption) => {
    const action = option.actions[0]!;
    assert.equal(action.type, 'build');
    return h.call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
      body: { optionId: option.id, data: action.type === 'build' ? action.data.data : '' },
    });
  };

  async function transactionOf(res: Response): Promise<Transaction> {
    const fetched = await expectJson<{ actions: { data: { params: unknown[] } }[] }>(res, 200);
    const { transaction } = fetched.actions[0]!.data.params[0] as { transaction: string };
    return getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
  }

  it('a Solana fetch answers 503 with Retry-After while every endpoint fails, then builds the transaction', async () => {
    const { paymentId, option } = await solanaReady();
    solanaProxy.inject('*', { kind: 'reset' });
    await expectUnavailable(await fetchBuild(paymentId, option));
    assert.equal(await status(paymentId), 'requires_action');

    solanaProxy.heal();
    const tx = await transactionOf(await afterHealing(() => fetchBuild(paymentId, option)));
    assert.ok(tx.messageBytes.length > 0);
  });

  it('a Solana confirm answers 503 with Retry-After while every endpoint fails, then the same confirm succeeds once', async () => {
    const { buyer, paymentId, option } = await solanaReady();
    const tx = await transactionOf(await fetchBuild(paymentId, option));
    const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));
    const body = { optionId: option.id, results: [signed] };

    solanaProxy.inject('*', { kind: 'reset' });
    await expectUnavailable(await h.confirm(paymentId, body));
    assert.equal(await status(paymentId), 'requires_action', 'the payment is left as it was');

    solanaProxy.heal();
    const accepted = await expectJson<StatusAnswer>(await afterHealing(() => h.confirm(paymentId, body)), 200);
    assert.equal(accepted.status, 'processing');
    assert.equal((await h.settle(paymentId, 'succeeded')).status, 'succeeded');
    const processing = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
    assert.equal(processing.length, 1, 'one broadcast');
  });

  it('the Solana Pay transaction request answers 503 with Retry-After when the blockhash read fails, then answers the transaction', async () => {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const request = () =>
      h.call('POST', `/v1/gateway/payment/${paymentId}/solana-pay`, {
        body: { account: buyer.signer.address },
        headers: { 'Api-Key': null },
      });

    // The balances answer (the account can pay); only building the transaction meets the outage.
    solanaProxy.inject('getLatestBlockhash', { kind: 'reset' });
    await expectUnavailable(await request());
    assert.equal(await status(paymentId), 'requires_action');

    solanaProxy.heal();
    const answer = await expectJson<{ transaction: string }>(await afterHealing(request), 200);
    assert.ok(getTransactionDecoder().decode(Buffer.from(answer.transaction, 'base64')).messageBytes.length > 0);
  });

  it('a Solana confirm whose send meets a failing endpoint answers 503, not "the transaction would fail", and the retry pays once', async () => {
    const { buyer, paymentId, option } = await solanaReady();
    const tx = await transactionOf(await fetchBuild(paymentId, option));
    const signed = getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.signer.keyPair], tx));
    const body = { optionId: option.id, results: [signed] };

    // Reads answer; only the send fails, before it reaches the chain.
    solanaProxy.inject('sendTransaction', { kind: 'serverError', status: 502 });
    await expectUnavailable(await h.confirm(paymentId, body));
    assert.equal(await status(paymentId), 'requires_action', 'the payment is left as it was');

    solanaProxy.heal();
    const accepted = await expectJson<StatusAnswer>(await afterHealing(() => h.confirm(paymentId, body)), 200);
    assert.equal(accepted.status, 'processing');
    assert.equal((await h.settle(paymentId, 'succeeded')).status, 'succeeded');
    const processing = await h.runtime.db.knex('events').where({ payment_id: paymentId, type: 'payment.processing' });
    assert.equal(processing.length, 1, 'one broadcast');
  });
});
