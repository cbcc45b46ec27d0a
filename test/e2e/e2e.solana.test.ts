/**
 * Issue 8 on Solana, end to end: the merchant SDK creates a payment, the wallet SDK pays it from a Solana account
 * (the server builds the transaction, the buyer's signer only signs it, the server co-signs as fee payer and
 * broadcasts), the merchant SDK's `waitForFinal` sees `succeeded`, and the shop's receiver, built on
 * `EventProcessor`, fulfils the order exactly once, however often the event arrives.
 *
 * Signers: a `@solana/kit` key pair signer (as `generateKeyPairSigner()` gives), and a wallet-standard wallet with the
 * `solana:signTransaction` feature (what a browser wallet registers). The buyer holds TUSD and no SOL: the service's
 * fee payer pays the transaction fee and the merchant's token account. A buyer paying in SOL (priced from the static
 * table, so its quote expires) loses the amount and nothing more; one who signs after the quote ran out is answered
 * quote_expired and the SDK signs the renewed quote. A confirm whose answer is lost (502, or a dropped connection) is
 * retried with the same signed transaction and charges once.
 *
 * One server for the file, as production runs it (harness.ts): background jobs, the real clock, the run's local
 * Solana chain (LiteSVM behind JSON-RPC, slots passing on the wall clock). That chain has no snapshots, so every test
 * uses a fresh buyer and compares the merchant's balance with what it was before.
 */
import assert from 'node:assert/strict';
import {
  getAddressEncoder,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  partiallySignTransaction,
  type KeyPairSigner,
  type Transaction,
  type TransactionPartialSigner,
} from '@solana/kit';
import type { SolanaSigner, SolanaStandardWallet } from '@paygate/sdk-wallet';
import { startProxy, type Proxy } from '../sdk/helpers.js';
import { eventually, startE2e, SUCCEEDED_EVENTS, type E2e, type SolanaBuyer } from './harness.js';
import { solanaTransactionOf } from '../helpers/wait.js';

const AMOUNT = 12_500_000n;
const FUNDS = 100_000_000n;

/** A key pair signer that counts what it signs, so a test can tell one signature from two. */
function countingSigner(signer: KeyPairSigner): TransactionPartialSigner & { signed: number } {
  const counting = {
    address: signer.address,
    signed: 0,
    signTransactions: (transactions: Parameters<KeyPairSigner['signTransactions']>[0]) => {
      counting.signed += transactions.length;
      return signer.signTransactions(transactions);
    },
  };
  return counting;
}

interface StandardWalletRequest {
  account: string;
  chain: string | undefined;
  transaction: Uint8Array;
}

/**
 * A wallet-standard wallet (`@wallet-standard/base`'s `Wallet`) as a browser extension registers one, holding the
 * buyer's key: `standard:connect` and `solana:signTransaction` (version 1.0.0 of `@solana/wallet-standard-features`),
 * which signs the given bytes with the account's key and never sends. It refuses an account it does not hold and a
 * transaction it cannot decode, as wallets do.
 */
function standardWallet(signer: KeyPairSigner): SolanaStandardWallet & { requests: StandardWalletRequest[] } {
  const requests: StandardWalletRequest[] = [];
  const account = {
    address: signer.address,
    publicKey: new Uint8Array(getAddressEncoder().encode(signer.address)),
    chains: ['solana:localnet'] as const,
    features: ['solana:signTransaction'] as const,
  };
  return {
    requests,
    version: '1.0.0',
    name: 'E2E Standard Wallet',
    icon: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=',
    chains: ['solana:localnet'],
    accounts: [account],
    features: {
      'standard:connect': { version: '1.0.0', connect: () => Promise.resolve({ accounts: [account] }) },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        async signTransaction(...inputs: { account: { address: string }; transaction: Uint8Array; chain?: string }[]) {
          return Promise.all(
            inputs.map(async (input) => {
              requests.push({ account: input.account.address, chain: input.chain, transaction: input.transaction });
              if (input.account.address !== account.address) throw new Error('The wallet does not hold this account.');
              const transaction = getTransactionDecoder().decode(input.transaction);
              const signed = await partiallySignTransaction([signer.keyPair], transaction);
              return { signedTransaction: new Uint8Array(getTransactionEncoder().encode(signed)) };
            }),
          );
        },
      },
    },
  } as SolanaStandardWallet & { requests: StandardWalletRequest[] };
}

describe('e2e.solana: merchant SDK, wallet SDK and webhook receiver on a real server and the local Solana chain', function () {
  // A first start of the shared chains, and the merchant's polling (every 2 s), take longer than mocha's default.
  this.timeout(180_000);
  let e: E2e;
  before(async () => {
    e = await startE2e();
  });
  after(() => e?.close());
  let leftovers: AbortController;
  beforeEach(() => (leftovers = new AbortController()));
  afterEach(() => leftovers.abort());

  /** The merchant's return page, waiting while the buyer pays. */
  function merchantWaits(paymentId: string) {
    const waiting = e.merchant.waitForFinal(paymentId, { timeoutMs: 30_000, signal: leftovers.signal });
    waiting.catch(() => undefined);
    return waiting;
  }

  const decode = (base64: string): Transaction => getTransactionDecoder().decode(getBase64Encoder().encode(base64));

  /** The landed transaction, as the chain returns it: fee, error, and the wire transaction itself. */
  async function landed(signature: string) {
    const tx = await solanaTransactionOf(e.solanaRpc, signature, { encoding: 'base64' });
    return { meta: tx.meta!, transaction: decode(tx.transaction[0]) };
  }

  /** A payment of 12.50 USD and the buyer's only option: TUSD on the local Solana chain. */
  async function paymentFor(buyer: SolanaBuyer, referenceId: string, baseUrl?: string) {
    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId,
    });
    const wallet = e.wallet(baseUrl ? { baseUrl } : {});
    const found = await wallet.getOptions({ paymentLink: created.gatewayUrl, accounts: [buyer.caip10] });
    assert.equal(found.paymentId, created.paymentId);
    // The buyer holds no SOL, so SOL is no option; TUSD is, pegged 1:1 to the dollar.
    assert.deepEqual(
      found.options.map((o) => [o.account, o.amount.unit, o.amount.value]),
      [[buyer.caip10, `caip19/${e.solanaTusd}`, AMOUNT.toString()]],
    );
    return { created, wallet, option: found.options[0]! };
  }

  /** The balances a Solana payment moves. */
  async function balances(buyer: SolanaBuyer) {
    return {
      buyerTusd: await e.solanaTusdBalance(buyer.address),
      buyerLamports: await e.lamports(buyer.address),
      merchantTusd: await e.solanaTusdBalance(e.solanaSettlement),
      feePayerLamports: await e.lamports(e.solana.feePayer.address),
    };
  }

  it('a kit signer: created, signed by the buyer, broadcast by the service, succeeded for the merchant, fulfilled once even when redelivered', async () => {
    const buyer = await e.solanaBuyer({ tusd: FUNDS });
    const { created, wallet, option } = await paymentFor(buyer, 'order-solana-1');
    assert.ok(created.gatewayUrl.endsWith(`/pay/${created.paymentId}`), created.gatewayUrl);
    const waiting = merchantWaits(created.paymentId);
    assert.equal(option.expiresAt, null, 'a pegged stablecoin involves no rate, so no quote expiry');
    assert.deepEqual(
      option.actions.map((a) => a.type),
      ['build'],
      'the transaction is built at fetch, with a fresh blockhash',
    );
    assert.equal(option.amount.display.assetSymbol, 'TUSD');
    const before = await balances(buyer);
    assert.deepEqual([before.buyerTusd, before.buyerLamports], [FUNDS, 0n]);

    const signer = countingSigner(buyer.signer);
    let sent: string | undefined;
    const final = await wallet.pay(
      option,
      { solana: signer },
      { onSigned: ({ request }) => void (sent = request.results[0] as string) },
    );
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.match(final.info?.txId ?? '', /^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    assert.deepEqual(
      [final.info?.optionAmount.unit, final.info?.optionAmount.value],
      [`caip19/${e.solanaTusd}`, AMOUNT.toString()],
    );
    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });
    assert.equal(signer.signed, 1, 'signed once');

    // What the wallet signed is what landed: the same message with the buyer's signature, and the service's fee
    // payer first (its signature is the transaction id); the buyer sent nothing and paid no fee.
    assert.ok(sent);
    const signed = decode(sent);
    const { meta, transaction } = await landed(final.info!.txId);
    assert.equal(meta.err, null);
    assert.deepEqual(transaction.messageBytes, signed.messageBytes);
    assert.deepEqual(Object.keys(transaction.signatures), [e.solana.feePayer.address, buyer.address]);
    assert.deepEqual(transaction.signatures[buyer.address], signed.signatures[buyer.address]);
    assert.equal(signed.signatures[e.solana.feePayer.address], null, 'the wallet left the fee payer’s signature');

    const after = await balances(buyer);
    assert.equal(after.buyerTusd, FUNDS - AMOUNT, 'the buyer paid exactly the amount');
    assert.equal(after.buyerLamports, 0n, 'the buyer held no SOL, before or after');
    assert.equal(after.merchantTusd, before.merchantTusd + AMOUNT);
    // The fee payer paid the fee, and the merchant's token account when this payment created it.
    const rent = before.merchantTusd === 0n ? await e.solanaRpc.getMinimumBalanceForRentExemption(165n).send() : 0n;
    assert.equal(before.feePayerLamports - after.feePayerLamports, BigInt(meta.fee) + rent);

    const payment = await e.merchant.getPayment(created.paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.success?.tx_id, final.info!.txId);
    assert.equal(payment.processing?.buyer_caip10, buyer.caip10);
    assert.equal(payment.processing?.chain_caip2, e.solana.caip2);

    // The shop: every event verified and processed, the order fulfilled once, with the payment's transaction.
    const received = await e.allEventsReceived(created.paymentId);
    assert.ok(
      received.every((d) => d.answer === 204),
      JSON.stringify(received.map((d) => d.answer)),
    );
    const processing = received.find((d) => d.event?.type === 'payment.processing')!.event!.data.processing;
    assert.deepEqual(processing?.option_amount, { unit: `caip19/${e.solanaTusd}`, value: AMOUNT.toString() });
    assert.equal(processing?.chain_caip2, e.solana.caip2);
    assert.deepEqual(
      e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
      [['order-solana-1', final.info!.txId]],
    );

    // Resent from the dashboard: a new delivery of the same event, which the shop recognises.
    const [succeeded] = await e.deliveriesOf(created.paymentId, 'payment.succeeded');
    assert.ok(succeeded);
    const resend = await e.dashboard('POST', `/v1/dashboard/webhook-deliveries/${succeeded.id}/resend`);
    assert.equal(resend.status, 202);
    await eventually(
      () => e.shop.deliveriesOf(created.paymentId).length === received.length + 1,
      'the resent delivery',
    );
    const again = e.shop.deliveriesOf(created.paymentId).at(-1)!;
    assert.equal(again.headers['webhook-id'], succeeded.eventId);
    assert.equal(again.answer, 204, 'a duplicate is answered 2xx, so Paygate stops sending it');
    assert.deepEqual(again.result, { outcome: 'duplicate', fulfilled: false });

    // The very same request again (a retry by a proxy between Paygate and the shop): same bytes, same headers.
    const original = received.find((d) => d.event?.type === 'payment.succeeded')!;
    const headers = Object.fromEntries(
      ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [
        h,
        String(original.headers[h]),
      ]),
    );
    const replayed = await fetch(e.shop.url, { method: 'POST', headers, body: original.body });
    assert.equal(replayed.status, 204);
    assert.deepEqual(e.shop.deliveriesOf(created.paymentId).at(-1)!.result, { outcome: 'duplicate', fulfilled: false });

    assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1, 'fulfilled exactly once');
    assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS);
    assert.equal(await e.solanaTusdBalance(buyer.address), FUNDS - AMOUNT, 'charged once');
  });

  it('a wallet-standard wallet: asked once for its account, succeeded for the merchant, fulfilled once', async () => {
    const buyer = await e.solanaBuyer({ tusd: FUNDS });
    const { created, wallet, option } = await paymentFor(buyer, 'order-solana-standard-1');
    const waiting = merchantWaits(created.paymentId);
    const standard = standardWallet(buyer.signer);
    const merchantBefore = await e.solanaTusdBalance(e.solanaSettlement);

    const final = await wallet.pay(option, { solana: standard });
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });

    // One request, for the buyer's account; the local cluster has no wallet-standard name, so none is given.
    assert.deepEqual(
      standard.requests.map((r) => [r.account, r.chain]),
      [[buyer.address, undefined]],
    );
    const asked = getTransactionDecoder().decode(standard.requests[0]!.transaction);
    const { meta, transaction } = await landed(final.info!.txId);
    assert.equal(meta.err, null);
    assert.deepEqual(transaction.messageBytes, asked.messageBytes, 'what landed is what the wallet was asked');
    assert.equal(Object.keys(transaction.signatures)[0], e.solana.feePayer.address);

    assert.equal(await e.solanaTusdBalance(buyer.address), FUNDS - AMOUNT);
    assert.equal(await e.lamports(buyer.address), 0n);
    assert.equal(await e.solanaTusdBalance(e.solanaSettlement), merchantBefore + AMOUNT);

    await e.allEventsReceived(created.paymentId);
    assert.deepEqual(
      e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
      [['order-solana-standard-1', final.info!.txId]],
    );
    assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS);
  });

  it('a wallet with an EVM and a Solana account: offered both, pays on Solana; the EVM account is untouched', async () => {
    const solanaBuyer = await e.solanaBuyer({ tusd: FUNDS });
    const evmBuyer = await e.buyer({ tusd: FUNDS });
    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-solana-mixed-1',
    });
    const wallet = e.wallet();
    const { options } = await wallet.getOptions({
      paymentLink: created.gatewayUrl,
      accounts: [evmBuyer.caip10, solanaBuyer.caip10],
    });
    const offered = options.map((o) => `${o.account} ${o.amount.unit} ${o.amount.value}`);
    for (const [account, asset] of [
      [evmBuyer.caip10, e.tusd],
      [solanaBuyer.caip10, e.solanaTusd],
    ] as const) {
      assert.ok(offered.includes(`${account} caip19/${asset} ${AMOUNT}`), offered.join('\n'));
    }
    const option = options.find((o) => o.account === solanaBuyer.caip10)!;

    // Both signers given, as a multi-chain wallet does: the option's namespace decides which one signs.
    const final = await wallet.pay(option, { eip155: evmBuyer.provider, solana: solanaBuyer.signer });
    assert.equal(final.status, 'succeeded');
    assert.deepEqual(evmBuyer.log, [], 'the EVM provider was asked nothing');
    assert.equal(await e.solanaTusdBalance(solanaBuyer.address), FUNDS - AMOUNT);
    assert.equal(await e.tusdBalance(evmBuyer.address), FUNDS);
    const payment = await e.merchant.getPayment(created.paymentId);
    assert.deepEqual(
      [payment.processing?.buyer_caip10, payment.processing?.chain_caip2],
      [solanaBuyer.caip10, e.solana.caip2],
    );
    await e.allEventsReceived(created.paymentId);
    assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1);
  });

  it('SOL: priced at a rate, paid with a system transfer; the buyer’s lamports drop by the amount alone', async () => {
    const buyer = await e.solanaBuyer({ lamports: 1_000_000_000n });
    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-solana-sol-1',
    });
    const waiting = merchantWaits(created.paymentId);
    const wallet = e.wallet();
    const { options } = await wallet.getOptions({ paymentLink: created.gatewayUrl, accounts: [buyer.caip10] });
    assert.deepEqual(
      options.map((o) => o.amount.unit),
      [`caip19/${e.sol}`],
    );
    const option = options[0]!;
    // 12.50 USD at the static 150 USD per SOL, rounded up to the lamport.
    assert.equal(option.amount.value, '83333334');
    assert.equal(typeof option.expiresAt, 'number', 'a rate is involved, so the quote expires');
    const merchantBefore = await e.lamports(e.solanaSettlement);
    const feePayerBefore = await e.lamports(e.solana.feePayer.address);

    const final = await wallet.pay(option, { solana: buyer.signer });
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });

    const { meta, transaction } = await landed(final.info!.txId);
    assert.equal(meta.err, null);
    assert.equal(Object.keys(transaction.signatures)[0], e.solana.feePayer.address);
    assert.equal(await e.lamports(buyer.address), 1_000_000_000n - 83_333_334n, 'the amount, and no fee');
    assert.equal(await e.lamports(e.solanaSettlement), merchantBefore + 83_333_334n);
    assert.equal(feePayerBefore - (await e.lamports(e.solana.feePayer.address)), BigInt(meta.fee));

    await e.allEventsReceived(created.paymentId);
    assert.deepEqual(
      e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
      [['order-solana-sol-1', final.info!.txId]],
    );
  });

  it('SOL signed after its quote expired: confirm answers quote_expired, the renewed quote is signed and paid once', async () => {
    const buyer = await e.solanaBuyer({ lamports: 1_000_000_000n });
    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-solana-sol-late-1',
    });
    // The wallet's requests, with what the server answered each.
    const answered: string[] = [];
    const wallet = e.wallet({
      fetch: async (request: Request) => {
        const response = await fetch(request);
        const path = new URL(request.url).pathname.split('/').at(-1)!;
        const code = response.ok ? '' : ` ${((await response.clone().json()) as { code: string }).code}`;
        answered.push(`${path} ${response.status}${code}`);
        return response;
      },
    });
    const { options } = await wallet.getOptions({ paymentId: created.paymentId, accounts: [buyer.caip10] });
    const quoted = options.find((o) => o.amount.unit === `caip19/${e.sol}`)!;
    assert.equal(quoted.amount.value, '83333334');
    // A buyer who takes their time: the first transaction is signed only once the quote has run out.
    const signer = countingSigner(buyer.signer);
    const slow: TransactionPartialSigner = {
      address: signer.address,
      async signTransactions(transactions) {
        if (signer.signed === 0) {
          await eventually(() => Date.now() >= quoted.expiresAt! * 1000 + 100, 'the quote to expire', 10_000);
        }
        return signer.signTransactions(transactions);
      },
    };
    const changes: string[] = [];
    const final = await wallet.pay(
      quoted,
      { solana: slow },
      { onQuoteChange: (previous, next) => (changes.push(`${previous.amount.value} → ${next.amount.value}`), true) },
    );
    assert.equal(final.status, 'succeeded');
    assert.deepEqual(
      answered.filter((a) => !a.startsWith('status')),
      ['options 200', 'fetch 200', 'confirm 409 quote_expired', 'options 200', 'fetch 200', 'confirm 200'],
    );
    assert.equal(signer.signed, 2, 'the expired transaction, then the renewed one');
    assert.deepEqual(changes, [], 'the static rate gives the same amount, so nothing to agree to');
    assert.equal(await e.lamports(buyer.address), 1_000_000_000n - 83_333_334n, 'paid once');
    await e.allEventsReceived(created.paymentId);
    assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS);
    assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1);
  });

  describe('behind a proxy that loses answers', () => {
    let proxy: Proxy;
    before(async () => {
      proxy = await startProxy(e.url);
    });
    after(() => proxy?.close());

    const confirms = (paymentId: string, from: number) =>
      proxy.log.slice(from).filter((x) => x.path === `/v1/gateway/payment/${paymentId}/confirm`);

    async function payBehindProxy(
      referenceId: string,
      fault: 'fail-after-forward' | 'drop-after-forward',
      sign: (buyer: SolanaBuyer) => { signer: SolanaSigner; signed: () => number },
    ) {
      const buyer = await e.solanaBuyer({ tusd: FUNDS });
      const { created, wallet, option } = await paymentFor(buyer, referenceId, proxy.url);
      const merchantBefore = await e.solanaTusdBalance(e.solanaSettlement);
      const { signer, signed } = sign(buyer);
      proxy.failNext({ method: 'POST', path: `/v1/gateway/payment/${created.paymentId}/confirm` }, { kind: fault });
      const from = proxy.log.length;
      const final = await wallet.pay(option, { solana: signer });
      assert.equal(final.status, 'succeeded');

      const sent = confirms(created.paymentId, from);
      assert.deepEqual(
        sent.map((x) => x.outcome),
        [fault === 'fail-after-forward' ? 502 : 'dropped', 200],
        'the server had accepted the first; the retry repeats it',
      );
      assert.equal(sent[1]!.body, sent[0]!.body, 'the same signed transaction again');
      assert.equal(signed(), 1, 'signed once');

      assert.deepEqual(await e.merchant.waitForFinal(created.paymentId, { timeoutMs: 10_000 }), {
        status: 'succeeded',
        isFinal: true,
        pollInMs: null,
      });
      await e.allEventsReceived(created.paymentId);
      assert.equal(await e.solanaTusdBalance(buyer.address), FUNDS - AMOUNT, 'the buyer paid once');
      assert.equal(await e.solanaTusdBalance(e.solanaSettlement), merchantBefore + AMOUNT);
      assert.equal(await e.lamports(buyer.address), 0n);
      assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS, 'one processing, one success');
      const claims = await e.server.runtime.db.knex('payment_claims').where({ payment_id: created.paymentId });
      assert.deepEqual(
        claims.map((c: { tx_id: string }) => c.tx_id),
        [final.info!.txId],
        'one claim, for the one transaction',
      );
      assert.deepEqual(
        e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
        [[referenceId, final.info!.txId]],
      );
    }

    it('a kit signer: a confirm whose answer is lost (502) is retried with the same transaction; charged once, fulfilled once', async () => {
      await payBehindProxy('order-solana-lost-1', 'fail-after-forward', (buyer) => {
        const signer = countingSigner(buyer.signer);
        return { signer, signed: () => signer.signed };
      });
    });

    it('a wallet-standard wallet: a confirm whose connection drops after the server had it is retried; charged once, fulfilled once', async () => {
      await payBehindProxy('order-solana-lost-2', 'drop-after-forward', (buyer) => {
        const wallet = standardWallet(buyer.signer);
        return { signer: wallet, signed: () => wallet.requests.length };
      });
    });
  });
});
