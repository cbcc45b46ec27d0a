/**
 * The quote rule of `pay`, and the flow end to end, against a real server serving the run's local chain: the buyer is
 * anvil's unlocked account #3, funded with TUSD by the faucet, and signs through a real EIP-1193 provider. The stale
 * options are built by the tests from real ones, with an `expiresAt` in the past; the renewed quotes are the
 * server's.
 */
import assert from 'node:assert/strict';
import { PayError, type PayableOption, type PaymentStatusResponse } from '@paygate/sdk-wallet';
import { fundAccount } from '../../server/src/chains/faucet.js';
import { useChainSnapshots } from '../helpers/chain.js';
import {
  ANVIL_BUYER,
  LOCAL_CHAIN,
  anvilProvider,
  recordingProvider,
  startWalletHarness,
  type RecordingProvider,
  type WalletHarness,
} from './walletHelpers.js';
import { driveJobsWhile } from '../helpers/wait.js';

const BUYER = `${LOCAL_CHAIN}:${ANVIL_BUYER}`;

describe('sdkWallet.quotes', function () {
  useChainSnapshots();
  let h: WalletHarness;
  let tusd: string;
  before(async () => {
    h = await startWalletHarness({ chains: true });
    tusd = `caip19/${LOCAL_CHAIN}/erc20:${h.chains!.local!.evm.testUsd}`;
  });
  after(() => h?.close());
  beforeEach(async () => {
    await fundAccount(h.chains!.local!, { account: BUYER, asset: tusd.slice('caip19/'.length), amount: '100000000' });
  });

  /** The server's TUSD option for the buyer on a new payment. */
  async function tusdOption(
    value = '1250',
    unit = 'iso4217/USD',
  ): Promise<{ option: PayableOption; gatewayUrl: string }> {
    const { gatewayUrl } = await h.createPayment({ value, ...(unit === 'iso4217/USD' ? {} : { unit }) });
    const { options } = await h.wallet().getOptions({ paymentLink: gatewayUrl, accounts: [BUYER] });
    const option = options.find((o) => o.amount.unit === tusd);
    assert.ok(option, `a TUSD option for the buyer: ${JSON.stringify(options)}`);
    return { option, gatewayUrl };
  }

  const stale = (option: PayableOption, changes: Partial<PayableOption> = {}): PayableOption => ({
    ...option,
    expiresAt: Math.floor(h.clock.now() / 1000) - 60,
    ...changes,
  });

  /** A provider on the buyer's chain that records every request and refuses to sign, as a buyer can. */
  const refusingToSign = (): RecordingProvider => {
    const inner = anvilProvider(h.chains!.local!.evm.config.rpcUrl);
    return recordingProvider({
      request: async (args) => {
        if (args.method === 'eth_chainId') return inner.request(args);
        throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
      },
    });
  };

  /** Runs the server's jobs (relay, confirmations) by its business clock until `promise` settles. */
  function drivingJobs<T>(promise: Promise<T>): Promise<T> {
    return driveJobsWhile('the SDK call to settle', promise, { clock: h.clock, drain: () => h.runtime.jobs.drain() });
  }

  it('getOptions from the gatewayUrl: the buyer’s options, each with its payment id', async () => {
    const { paymentId, gatewayUrl } = await h.createPayment();
    const from = h.proxy.log.length;
    const answer = await h
      .wallet()
      .getOptions({ paymentLink: gatewayUrl, accounts: [BUYER], includePaymentInfo: true });
    assert.equal(answer.paymentId, paymentId);
    assert.ok(answer.options.length > 0);
    assert.ok(
      answer.options.every((o) => o.paymentId === paymentId && o.account.toLowerCase() === BUYER.toLowerCase()),
    );
    assert.ok(answer.options.some((o) => o.amount.unit === tusd));
    assert.equal(answer.info?.status, 'requires_action');
    assert.deepEqual(h.exchanges(from), [
      `POST /v1/gateway/payment/${paymentId}/options?includePaymentInfo=true → 200`,
    ]);
  });

  it('an expired option whose renewed quote has another amount is never signed without onQuoteChange', async () => {
    const { option } = await tusdOption();
    const previous = stale(option, { amount: { ...option.amount, value: String(BigInt(option.amount.value) + 1n) } });
    const provider = refusingToSign();
    const from = h.proxy.log.length;
    const error = await h
      .wallet()
      .pay(previous, { eip155: provider })
      .catch((e: unknown) => e);
    assert.ok(error instanceof PayError, String(error));
    assert.equal(error.reason, 'quote_changed');
    assert.equal(error.quote?.previous, previous);
    assert.equal(error.quote?.next.amount.value, option.amount.value);
    assert.equal(error.quote?.next.paymentId, option.paymentId);
    assert.deepEqual(provider.calls, [], 'nothing signed');
    // Asked again for the same account, naming the stale option; nothing else was sent.
    assert.deepEqual(h.exchanges(from), [`POST /v1/gateway/payment/${option.paymentId}/options → 200`]);
    assert.deepEqual(JSON.parse(h.proxy.log[from]!.body), { accounts: [previous.account], refresh: [previous.id] });
  });

  it('onQuoteChange(previous, next) decides: false stops before anything is signed', async () => {
    const { option } = await tusdOption();
    const previous = stale(option, { amount: { ...option.amount, value: '1' } });
    const asked: [PayableOption, PayableOption][] = [];
    const provider = refusingToSign();
    await assert.rejects(
      h.wallet().pay(previous, { eip155: provider }, { onQuoteChange: async (p, n) => (asked.push([p, n]), false) }),
      { name: 'PayError', reason: 'quote_changed' },
    );
    assert.equal(asked.length, 1);
    assert.equal(asked[0]![0], previous);
    assert.equal(asked[0]![1].amount.value, option.amount.value);
    assert.deepEqual(provider.calls, []);
  });

  it('onQuoteChange resolving true: the renewed option is what gets signed, not the stale one', async () => {
    const { option } = await tusdOption();
    const previous = stale(option, { amount: { ...option.amount, value: '1' } });
    const provider = refusingToSign();
    let next: PayableOption | undefined;
    await assert.rejects(
      h.wallet().pay(previous, { eip155: provider }, { onQuoteChange: (_p, n) => ((next = n), true) }),
      { code: 4001 },
    );
    const signing = provider.calls.filter((c) => c.method !== 'eth_chainId');
    assert.equal(signing.length, 1, 'asked to sign once, then refused');
    const action = next!.actions[0]!;
    assert.equal(action.type, 'walletRpc');
    assert.deepEqual(signing[0], { method: action.data.method, params: action.data.params });
  });

  it('a renewed quote at the same amount is signed without asking', async () => {
    const { option } = await tusdOption();
    const provider = refusingToSign();
    await assert.rejects(
      h
        .wallet()
        .pay(stale(option), { eip155: provider }, { onQuoteChange: () => assert.fail('same amount: not asked') }),
      { code: 4001 },
    );
    assert.ok(provider.calls.some((c) => c.method !== 'eth_chainId'));
  });

  it('option_unavailable when the server no longer offers the option’s asset to the account', async () => {
    const { option } = await tusdOption();
    const gone = stale(option, {
      amount: { ...option.amount, unit: `caip19/${LOCAL_CHAIN}/erc20:0x000000000000000000000000000000000000dEaD` },
    });
    const provider = refusingToSign();
    await assert.rejects(h.wallet().pay(gone, { eip155: provider }), {
      name: 'PayError',
      reason: 'option_unavailable',
    });
    assert.deepEqual(provider.calls, []);
  });

  it('a 409 quote_expired from fetch, before signing, is handled the same way', async () => {
    // No option of the local chain has a build action yet (they come with Solana): the proxy answers fetch with the
    // server's refusal, and the renewal is the real server's.
    const { option } = await tusdOption();
    const previous: PayableOption = {
      ...option,
      amount: { ...option.amount, value: '1' },
      actions: [{ type: 'build', data: { data: 'bld_stale' } }],
    };
    const fetchPath = `/v1/gateway/payment/${option.paymentId}/fetch`;
    h.proxy.failNext(
      { method: 'POST', path: fetchPath },
      { kind: 'respond', status: 409, body: { code: 'quote_expired', message: 'The quote expired.' } },
    );
    const provider = refusingToSign();
    const from = h.proxy.log.length;
    const error = await h
      .wallet()
      .pay(previous, { eip155: provider })
      .catch((e: unknown) => e);
    assert.ok(error instanceof PayError, String(error));
    assert.equal(error.reason, 'quote_changed');
    assert.equal(error.quote?.next.amount.value, option.amount.value);
    assert.deepEqual(h.exchanges(from), [
      `POST ${fetchPath} → 409`,
      `POST /v1/gateway/payment/${option.paymentId}/options → 200`,
    ]);
    assert.deepEqual(provider.calls, []);
  });

  it('the whole flow: pay signs with the buyer’s wallet, confirms, and long-polls until succeeded', async () => {
    const { option } = await tusdOption();
    const provider = recordingProvider(anvilProvider(h.chains!.local!.evm.config.rpcUrl));
    const final: PaymentStatusResponse = await drivingJobs(
      h.wallet().pay(option, { eip155: provider }, { maxPollMs: 500 }),
    );
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.equal(final.info?.optionAmount.value, option.amount.value);
    const paths = h.proxy.log.map((e) => `${e.method} ${e.path.split('?')[0]}`);
    assert.ok(paths.includes(`POST /v1/gateway/payment/${option.paymentId}/confirm`));
    assert.equal(provider.calls.filter((c) => c.method !== 'eth_chainId').length, 1, 'one action, signed once');
  });

  it('a confirm whose answer is lost is retried with the same results, which the server accepts again', async () => {
    const { option } = await tusdOption();
    const confirmPath = `/v1/gateway/payment/${option.paymentId}/confirm`;
    h.proxy.failNext({ method: 'POST', path: confirmPath }, { kind: 'fail-after-forward' });
    const provider = recordingProvider(anvilProvider(h.chains!.local!.evm.config.rpcUrl));
    const from = h.proxy.log.length;
    const final = await drivingJobs(h.wallet().pay(option, { eip155: provider }, { maxPollMs: 500 }));
    assert.equal(final.status, 'succeeded');
    const confirms = h.proxy.log.slice(from).filter((e) => e.path.startsWith(confirmPath));
    assert.deepEqual(
      confirms.map((e) => e.outcome),
      [502, 200],
      'the server had accepted the first; the retry is its identical repeat',
    );
    assert.equal(confirms[1]!.body, confirms[0]!.body);
    assert.equal(provider.calls.filter((c) => c.method === 'eth_signTypedData_v4').length, 1, 'signed once');
  });

  it('a confirm refused as quote_expired after signing: renewed, signed again, confirmed', async () => {
    // EUR into a USD-pegged token: an exchange rate, so the quote expires.
    const { option } = await tusdOption('1000', 'iso4217/EUR');
    assert.equal(typeof option.expiresAt, 'number', 'a quote with a rate has an expiry');
    // The device believes the quote is fresh; the server's clock has passed it.
    h.clock.set((option.expiresAt! + 1) * 1000);
    const provider = recordingProvider(anvilProvider(h.chains!.local!.evm.config.rpcUrl));
    const from = h.proxy.log.length;
    const wallet = h.wallet({ now: () => (option.expiresAt! - 30) * 1000 });
    const final = await drivingJobs(
      wallet.pay(option, { eip155: provider }, { onQuoteChange: () => true, maxPollMs: 500 }),
    );
    assert.equal(final.status, 'succeeded');
    const steps = h.exchanges(from).filter((line) => !line.includes('/status'));
    const id = option.paymentId;
    assert.deepEqual(steps, [
      `POST /v1/gateway/payment/${id}/confirm → 409`,
      `POST /v1/gateway/payment/${id}/options → 200`,
      `POST /v1/gateway/payment/${id}/confirm → 200`,
    ]);
    assert.equal(provider.calls.filter((c) => c.method === 'eth_signTypedData_v4').length, 2);
  });
});
