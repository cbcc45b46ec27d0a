/**
 * `build` actions: resolved through fetch, their calls checked with all the others before any is performed, and
 * their results grouped per action. The local chain has no option with a build action yet (they come with Solana),
 * so the proxy answers fetch itself, as a server would; the calls are signed for real by anvil's unlocked account,
 * and the flow is stopped in `onSigned`, before confirm, where the results are read.
 */
import assert from 'node:assert/strict';
import { PayError, type ConfirmPaymentRequest, type WalletRpcAction } from '@paygate/sdk-wallet';
import { sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import {
  ANVIL_BUYER,
  anvilProvider,
  optionOf,
  recordingProvider,
  signTypedData,
  startWalletHarness,
  walletRpc,
  type WalletHarness,
} from './walletHelpers.js';

describe('sdkWallet.pay.build', () => {
  useChainSnapshots();
  let h: WalletHarness;
  let paymentId: string;
  let rpcUrl: string;
  before(async () => {
    h = await startWalletHarness();
    ({ paymentId } = await h.createPayment());
    rpcUrl = (await sharedLocalChain()).config.rpcUrl;
  });
  after(() => h.close());

  const fetchPath = () => `/v1/gateway/payment/${paymentId}/fetch`;
  const fetchAnswers = (actions: WalletRpcAction[]) =>
    h.proxy.failNext(
      { method: 'POST', path: fetchPath() },
      { kind: 'respond', status: 200, body: { actions: actions.map(walletRpc) } },
    );
  const stopped = new Error('stopped in onSigned');

  async function signedRequest(option: ReturnType<typeof optionOf>): Promise<ConfirmPaymentRequest> {
    let request: ConfirmPaymentRequest | undefined;
    await assert.rejects(
      h.wallet().pay(
        option,
        { eip155: anvilProvider(rpcUrl) },
        {
          onSigned: (s) => {
            request = s.request;
            throw stopped;
          },
        },
      ),
      (e) => e === stopped,
    );
    return request!;
  }

  it('a build action resolved to several calls gives one object result; the others stay plain strings, in order', async () => {
    const option = optionOf(paymentId, [
      signTypedData(ANVIL_BUYER, 31337, '1'),
      { type: 'build', data: { data: 'bld_two_calls' } },
      { type: 'build', data: { data: 'bld_one_call' } },
    ]);
    fetchAnswers([signTypedData(ANVIL_BUYER, 31337, '2').data, signTypedData(ANVIL_BUYER, 31337, '3').data]);
    fetchAnswers([signTypedData(ANVIL_BUYER, 31337, '4').data]);
    const from = h.proxy.log.length;
    const request = await signedRequest(option);

    assert.deepEqual(h.exchanges(from), [`POST ${fetchPath()} → 200`, `POST ${fetchPath()} → 200`]);
    assert.deepEqual(
      h.proxy.log.slice(from).map((e) => JSON.parse(e.body)),
      [
        { optionId: option.id, data: 'bld_two_calls' },
        { optionId: option.id, data: 'bld_one_call' },
      ],
    );
    const [first, built, single] = request.results;
    assert.equal(request.results.length, 3, 'one result per action of the option');
    assert.match(first as string, /^0x[0-9a-f]{130}$/);
    assert.equal(typeof built, 'object');
    const { type, data } = built as { type: string; data: string[] };
    assert.equal(type, 'walletRpc');
    assert.equal(data.length, 2);
    for (const signature of data) assert.match(signature, /^0x[0-9a-f]{130}$/);
    assert.match(single as string, /^0x[0-9a-f]{130}$/);
    assert.equal(new Set([first, ...data, single]).size, 4, 'four different signatures, one per call');
  });

  it('an unknown method among the fetched calls: refused before the earlier action is signed', async () => {
    const provider = recordingProvider(anvilProvider(rpcUrl));
    const option = optionOf(paymentId, [signTypedData(ANVIL_BUYER), { type: 'build', data: { data: 'bld_x' } }]);
    fetchAnswers([{ chain_id: 'eip155:31337', method: 'wallet_sendCalls', params: [{}] }]);
    const error = await h
      .wallet()
      .pay(option, { eip155: provider })
      .catch((e: unknown) => e);
    assert.ok(error instanceof PayError);
    assert.deepEqual([error.reason, error.actionIndex], ['unsupported_method', 1]);
    assert.deepEqual(provider.calls, [], 'nothing asked of the wallet');
  });

  it('fetch failing with a 5xx is retried like every gateway call', async () => {
    const option = optionOf(paymentId, [{ type: 'build', data: { data: 'bld_retry' } }]);
    h.proxy.failNext(
      { method: 'POST', path: fetchPath() },
      { kind: 'respond', status: 503, body: { code: 'internal_error', message: 'Busy.' } },
    );
    fetchAnswers([signTypedData(ANVIL_BUYER).data]);
    const from = h.proxy.log.length;
    const request = await signedRequest(option);
    assert.deepEqual(h.exchanges(from), [`POST ${fetchPath()} → 503`, `POST ${fetchPath()} → 200`]);
    assert.match(request.results[0] as string, /^0x[0-9a-f]{130}$/);
  });
});
