/**
 * What `pay` refuses, and that it refuses before anything is signed: the options are built by the tests as inputs
 * (the server has not seen them), and the proxy shows that no request reached the server either.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSigner } from '@solana/kit';
import { PayError, type ConfirmPaymentRequest, type PayableOption, type Signers } from '@paygate/sdk-wallet';
import { sharedLocalChain, useChainSnapshots } from '../helpers/chain.js';
import {
  ANVIL_BUYER,
  LOCAL_SETTLEMENT,
  anvilProvider,
  optionOf,
  recordingProvider,
  signTypedData,
  startWalletHarness,
  walletRpc,
  type WalletHarness,
} from './walletHelpers.js';

const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

describe('sdkWallet.pay.refusals', () => {
  let h: WalletHarness;
  let paymentId: string;
  before(async () => {
    h = await startWalletHarness();
    ({ paymentId } = await h.createPayment());
  });
  after(() => h.close());

  /** Pays and expects a PayError of `reason` at `actionIndex`, with nothing asked of the signers nor the server. */
  async function refused(
    option: PayableOption,
    signers: Signers,
    reason: PayError['reason'],
    actionIndex: number | null,
    options: Parameters<ReturnType<WalletHarness['wallet']>['pay']>[2] = {},
  ): Promise<PayError> {
    const from = h.proxy.log.length;
    const error = await h
      .wallet()
      .pay(option, signers, options)
      .then(
        () => assert.fail(`expected a PayError ${reason}`),
        (e: unknown) => e,
      );
    assert.ok(error instanceof PayError, `expected a PayError, got ${String(error)}`);
    assert.deepEqual([error.reason, error.actionIndex], [reason, actionIndex], error.message);
    assert.equal(error.name, 'PayError');
    assert.deepEqual(h.exchanges(from), [], 'nothing was sent to the server');
    return error;
  }

  it('an unknown method after a signature: refused, and the provider is never asked anything', async () => {
    const provider = recordingProvider();
    const option = optionOf(paymentId, [
      signTypedData(ANVIL_BUYER),
      walletRpc({ chain_id: 'eip155:31337', method: 'eth_signTransaction_v9', params: [] }),
    ]);
    const error = await refused(option, { eip155: provider }, 'unsupported_method', 1);
    assert.match(error.message, /eth_signTransaction_v9/);
    assert.deepEqual(provider.calls, []);
  });

  it('an unknown method after a build action: refused before the build action is even fetched', async () => {
    const provider = recordingProvider();
    const option = optionOf(paymentId, [
      { type: 'build', data: { data: 'bld_token' } },
      walletRpc({ chain_id: 'eip155:31337', method: 'personal_sign', params: ['0x00', ANVIL_BUYER] }),
    ]);
    await refused(option, { eip155: provider }, 'unsupported_method', 1);
    assert.deepEqual(provider.calls, []);
  });

  it('a missing signer for a namespace: refused before the other namespace’s action is signed', async () => {
    const provider = recordingProvider();
    const option = optionOf(paymentId, [
      signTypedData(ANVIL_BUYER),
      walletRpc({ chain_id: SOLANA_MAINNET, method: 'solana_signTransaction', params: [{ transaction: 'AA==' }] }),
    ]);
    const error = await refused(option, { eip155: provider }, 'missing_signer', 1);
    assert.match(error.message, /solana/);
    assert.deepEqual(provider.calls, []);

    // And the other way round: a Solana signer only, for an EVM action.
    await refused(option, { solana: await generateKeyPairSigner() }, 'missing_signer', 0);
  });

  it('an action type this SDK does not know: refused, never skipped', async () => {
    const provider = recordingProvider();
    const option = optionOf(paymentId, [
      signTypedData(ANVIL_BUYER),
      { type: 'bridge', data: { route: 'x' } } as unknown as PayableOption['actions'][number],
    ]);
    await refused(option, { eip155: provider }, 'unsupported_action', 1);
    assert.deepEqual(provider.calls, []);
  });

  it('a method on a chain of another namespace, or params not of the method’s form: refused', async () => {
    const provider = recordingProvider();
    await refused(
      optionOf(paymentId, [walletRpc({ chain_id: SOLANA_MAINNET, method: 'eth_sendTransaction', params: [{}] })]),
      { eip155: provider },
      'unsupported_method',
      0,
    );
    await refused(
      optionOf(paymentId, [
        signTypedData(ANVIL_BUYER),
        walletRpc({ chain_id: 'eip155:31337', method: 'eth_sendTransaction', params: ['0xdeadbeef'] }),
      ]),
      { eip155: provider },
      'invalid_action',
      1,
    );
    assert.deepEqual(provider.calls, []);
  });

  it('an option that requires the buyer’s data is refused without collectedData (its own or the payment’s form) unless filled on the web', async () => {
    const provider = recordingProvider();
    const collectData = { fields: [], schema: { type: 'object' }, url: 'https://pay.example/collect' };
    await refused(
      optionOf(paymentId, [signTypedData(ANVIL_BUYER)], { collectData }),
      { eip155: provider },
      'collected_data_required',
      null,
    );
    await refused(
      optionOf(paymentId, [signTypedData(ANVIL_BUYER)], { paymentCollectData: collectData }),
      { eip155: provider },
      'collected_data_required',
      null,
    );
    assert.deepEqual(provider.calls, []);

    // Filled in the web form at collectData.url instead: the server has the data, and the flow goes on to sign.
    const onWeb = recordingProvider();
    const option = optionOf(paymentId, [signTypedData(ANVIL_BUYER)], { collectData });
    await assert.rejects(h.wallet().pay(option, { eip155: onWeb }, { collectedOnWeb: true }), { code: 4001 });
    assert.deepEqual(
      onWeb.calls.map((c) => c.method),
      ['eth_chainId'],
    );
  });

  it('an aborted signal stops it before anything', async () => {
    const provider = recordingProvider();
    const from = h.proxy.log.length;
    const reason = new Error('closed');
    await assert.rejects(
      h
        .wallet()
        .pay(
          optionOf(paymentId, [signTypedData(ANVIL_BUYER)]),
          { eip155: provider },
          { signal: AbortSignal.abort(reason) },
        ),
      (e) => e === reason,
    );
    assert.deepEqual(provider.calls, []);
    assert.equal(h.proxy.log.length, from);
  });

  describe('with a real provider (anvil)', () => {
    useChainSnapshots();
    let rpcUrl: string;
    before(async () => {
      rpcUrl = (await sharedLocalChain()).config.rpcUrl;
    });

    it('a provider on another chain than the option’s: chain_mismatch before the first action is signed', async () => {
      const provider = recordingProvider(anvilProvider(rpcUrl));
      const option = optionOf(paymentId, [
        walletRpc({ chain_id: SOLANA_MAINNET, method: 'solana_signTransaction', params: [{ transaction: 'AA==' }] }),
        signTypedData(ANVIL_BUYER, 8453),
      ]);
      const solana = await generateKeyPairSigner();
      await refused(option, { eip155: provider, solana }, 'chain_mismatch', 1);
      assert.deepEqual(
        provider.calls.map((c) => c.method),
        ['eth_chainId'],
        'the Solana action before it was not signed either',
      );
    });

    it('performs every action in order and confirms their results in that order (here stopped before confirm)', async () => {
      const provider = recordingProvider(anvilProvider(rpcUrl));
      const tx = { from: ANVIL_BUYER, to: LOCAL_SETTLEMENT, data: '0x', value: '0x1' };
      const option = optionOf(paymentId, [
        signTypedData(ANVIL_BUYER),
        walletRpc({ chain_id: 'eip155:31337', method: 'eth_sendTransaction', params: [tx] }),
        signTypedData(ANVIL_BUYER, 31337, '7'),
      ]);
      let signed: { paymentId: string; request: ConfirmPaymentRequest } | undefined;
      const stop = new Error('the app keeps the confirm and stops here');
      const from = h.proxy.log.length;
      await assert.rejects(
        h.wallet().pay(
          option,
          { eip155: provider },
          {
            collectedData: { fullName: 'Ada' },
            onSigned: (s) => {
              signed = s;
              throw stop;
            },
          },
        ),
        (e) => e === stop,
      );
      assert.deepEqual(
        provider.calls.map((c) => c.method),
        [
          'eth_chainId',
          'eth_chainId',
          'eth_signTypedData_v4',
          'eth_chainId',
          'eth_sendTransaction',
          'eth_chainId',
          'eth_signTypedData_v4',
        ],
      );
      assert.equal(signed?.paymentId, paymentId);
      assert.equal(signed?.request.optionId, option.id);
      assert.deepEqual(signed?.request.collectedData, { fullName: 'Ada' });
      const [first, hash, third] = signed!.request.results as string[];
      assert.match(first!, /^0x[0-9a-f]{130}$/);
      assert.match(hash!, /^0x[0-9a-f]{64}$/);
      assert.match(third!, /^0x[0-9a-f]{130}$/);
      assert.notEqual(first, third, 'each signature is its own action’s');
      assert.deepEqual(h.exchanges(from), [], 'onSigned comes before confirm');
    });

    it('a buyer who refuses in the wallet: pay rejects with the provider’s error, and nothing is confirmed', async () => {
      const inner = anvilProvider(rpcUrl);
      const provider = recordingProvider({
        request: async (args) => {
          if (args.method === 'eth_chainId') return inner.request(args);
          throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
        },
      });
      const from = h.proxy.log.length;
      await assert.rejects(h.wallet().pay(optionOf(paymentId, [signTypedData(ANVIL_BUYER)]), { eip155: provider }), {
        code: 4001,
      });
      assert.deepEqual(h.exchanges(from), []);
    });
  });
});
