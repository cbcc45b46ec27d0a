/**
 * WalletConnect Pay's own wallet SDK (`@walletconnect/pay` from npm, its WebAssembly build, unchanged) pointed at a
 * Paygate server on the run's chains (docs/decisions.md §28): every path it offers, as it sends them. The SDK speaks
 * HTTP through the global `fetch`; the test wraps it to record what the SDK sends to Paygate and to keep the SDK's
 * telemetry (WalletConnect's ingest servers) off the network, answering those calls as an offline machine would.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import type * as WalletConnectPaySdk from '@walletconnect/pay';
import { readCollectedData } from '../../server/src/collect/index.js';
import { useChainSnapshots } from '../helpers/chain.js';
import { startCheckoutHarness, type Buyer, type CheckoutHarness, type StatusAnswer } from './checkout.js';
import { expectJson } from './harness.js';

// The package's ESM build imports `brotli/decompress` without an extension, which Node refuses; its CommonJS build
// (the `default` export condition, what `require` and Node's `import` both pick) loads.
const { WalletConnectPay } = createRequire(import.meta.url)('@walletconnect/pay') as typeof WalletConnectPaySdk;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Replaces the global fetch while the SDK runs: calls to this machine pass (the chains' RPC goes through it too) and
 * Paygate's are recorded; anything else fails as it would offline.
 */
function recordSdkTraffic(base: string): { sent: Sent[]; restore: () => void } {
  const original = globalThis.fetch;
  const sent: Sent[] = [];
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(request.url)) {
      throw new TypeError(`no network in tests: ${request.url}`);
    }
    if (!request.url.startsWith(base)) return original(request);
    sent.push({
      method: request.method,
      path: request.url.slice(base.length),
      headers: Object.fromEntries(request.headers),
      body: await request.clone().text(),
    });
    return original(request);
  };
  return { sent, restore: () => (globalThis.fetch = original) };
}

const collected = [
  { id: 'fullName', value: 'Ada Lovelace' },
  { id: 'dob', value: '1815-12-10' },
  { id: 'porCountry', value: 'GB' },
  { id: 'porAddress', value: 'London' },
  { id: 'tosConfirmed', value: 'true' },
];

describe('gateway: the WalletConnect Pay SDK (@walletconnect/pay) against Paygate', () => {
  useChainSnapshots();
  let h: CheckoutHarness;
  let traffic: ReturnType<typeof recordSdkTraffic>;
  let sdk: InstanceType<typeof WalletConnectPay>;
  before(async () => {
    h = await startCheckoutHarness();
    traffic = recordSdkTraffic(h.server.url);
    sdk = new WalletConnectPay({ apiKey: h.wallet.testKey, baseUrl: h.server.url, logger: 'silent' });
  });
  after(async () => {
    traffic.restore();
    await h.close();
  });
  beforeEach(() => (traffic.sent.length = 0));

  /** The SDK's confirm polls status until the payment is final; the jobs that make it final run meanwhile. */
  async function confirmWhileSettling(
    paymentId: string,
    confirm: () => Promise<{ status: string; isFinal: boolean; info?: { txId: string } }>,
  ) {
    const answer = confirm();
    await Promise.race([h.settle(paymentId, 'succeeded'), answer]);
    return answer;
  }

  it('options with payment info, actions, confirm with collected data in its fields form, then status polls: succeeded', async () => {
    const buyer: Buyer = await h.buyer(2_000_000_000n);
    const paymentId = await h.createPayment({ amount: { unit: 'iso4217/USD', value: '100000' } });

    const options = await sdk.getPaymentOptions({
      paymentLink: paymentId,
      accounts: [buyer.caip10],
      includePaymentInfo: true,
    });
    assert.equal(options.paymentId, paymentId);
    assert.equal(options.info?.status, 'requires_action');
    assert.equal(options.info?.amount.unit, 'iso4217/USD');
    assert.ok(options.collectData, 'the payment requires data collection');
    const option = options.options.find((o) => o.amount.unit === `caip19/${h.tusd}`);
    assert.ok(option, 'an option in TUSD');

    const actions = await sdk.getRequiredPaymentActions({ paymentId, optionId: option.id });
    assert.equal(actions.length, 1);
    const rpc = actions[0]!.walletRpc;
    assert.equal(rpc.chainId, 'eip155:31337');
    assert.equal(rpc.method, 'eth_signTypedData_v4');
    const typed = JSON.parse(JSON.parse(rpc.params)[1] as string) as {
      domain: Record<string, unknown>;
      types: Record<string, { name: string; type: string }[]>;
      primaryType: string;
      message: Record<string, unknown>;
    };
    const { EIP712Domain: _domain, ...types } = typed.types;
    const signature = await buyer.wallet.signTypedData({
      account: buyer.account,
      domain: typed.domain,
      types,
      primaryType: typed.primaryType,
      message: typed.message,
    });

    const confirmed = await confirmWhileSettling(paymentId, () =>
      sdk.confirmPayment({ paymentId, optionId: option.id, signatures: [signature], collectedData: collected }),
    );
    assert.equal(confirmed.status, 'succeeded');
    assert.equal(confirmed.isFinal, true);
    assert.match(confirmed.info!.txId, /^0x[0-9a-f]{64}$/);
    assert.deepEqual(await readCollectedData(h.runtime, paymentId), {
      fullName: 'Ada Lovelace',
      dob: '1815-12-10',
      porCountry: 'GB',
      porAddress: 'London',
      tosConfirmed: true,
    });

    // What the SDK sent: WalletConnect Pay's paths, headers and bodies, all answered by Paygate.
    const confirm = traffic.sent.find((s) => s.path === `/v1/gateway/payment/${paymentId}/confirm`);
    assert.ok(confirm);
    assert.deepEqual(JSON.parse(confirm.body), {
      collectedData: { fields: collected },
      optionId: option.id,
      results: [{ type: 'walletRpc', data: [signature] }],
    });
    assert.equal(confirm.headers['wcp-version'], '2026-02-19.preview');
    assert.equal(confirm.headers['api-key'], h.wallet.testKey);
    assert.equal(confirm.headers['sdk-name'], 'js-walletconnect-pay');
    assert.ok(
      traffic.sent.some((s) => s.method === 'GET' && s.path === `/v1/gateway/payment/${paymentId}/status`),
      'confirm polled the status operation',
    );
    assert.ok(
      traffic.sent.some((s) => s.path === `/v1/gateway/payment/${paymentId}/options?includePaymentInfo=true`),
      'options asked for the payment info',
    );
  });

  it('a Solana option: actions fetched through the build action, signed, confirmed: succeeded', async () => {
    const buyer = await h.solanaBuyer();
    const paymentId = await h.createPayment();
    const options = await sdk.getPaymentOptions({ paymentLink: paymentId, accounts: [buyer.caip10] });
    const option = options.options.find((o) => o.amount.unit === `caip19/${h.solanaTusd}`);
    assert.ok(option, 'an option in Solana TUSD');

    const actions = await sdk.getRequiredPaymentActions({ paymentId, optionId: option.id });
    assert.ok(
      traffic.sent.some((s) => s.path === `/v1/gateway/payment/${paymentId}/fetch`),
      'fetch resolved the build',
    );
    assert.equal(actions.length, 1);
    assert.equal(actions[0]!.walletRpc.method, 'solana_signTransaction');
    const [{ transaction }] = JSON.parse(actions[0]!.walletRpc.params) as [{ transaction: string }];
    const signed = await walletSigns(buyer.signer, transaction);

    const confirmed = await confirmWhileSettling(paymentId, () =>
      sdk.confirmPayment({ paymentId, optionId: option.id, signatures: [signed] }),
    );
    assert.equal(confirmed.status, 'succeeded');
    assert.match(confirmed.info!.txId, /^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
  });

  it('cancel (which the SDK does not offer) answers the headers it sends with both cancel shapes', async () => {
    const paymentId = await h.createPayment();
    const answer = await h.call('POST', `/v1/gateway/payment/${paymentId}/cancel`, {
      headers: {
        'WCP-Version': '2026-02-19.preview',
        'Api-Version': '2026-02-19.preview',
        'Sdk-Name': 'js-walletconnect-pay',
      },
    });
    assert.equal(answer.headers.get('wcp-version'), '2026-02-19.preview');
    const body = await expectJson<StatusAnswer & Record<string, unknown>>(answer, 200);
    assert.equal(body.status, 'cancelled');
    assert.equal(body.isFinal, true);
    assert.equal(body.paymentId, paymentId);
    assert.equal(body.cancelledReason, 'cancelled_by_user');
    assert.equal(body.cancelledAt, new Date(h.clock.now()).toISOString());
  });
});

/** What a wallet does with solana_signTransaction: sign its own part, never broadcast. */
async function walletSigns(buyer: KeyPairSigner, transaction: string): Promise<string> {
  const tx = getTransactionDecoder().decode(Buffer.from(transaction, 'base64'));
  return getBase64EncodedWireTransaction(await partiallySignTransaction([buyer.keyPair], tx));
}
