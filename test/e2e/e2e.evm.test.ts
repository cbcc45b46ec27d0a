/**
 * Issue 8 on EVM, end to end: the merchant SDK creates a payment, the wallet SDK pays it (gasless EIP-3009, or a
 * direct transfer), the merchant SDK's `waitForFinal` sees `succeeded`, and the shop's receiver, built on
 * `EventProcessor`, fulfils the order exactly once, however often the event arrives.
 *
 * The error paths, and where each is tested:
 * - an expired quote is fetched again, and signed only after the callback agrees: sdkWallet.quotes (stale options
 *   built by the test, the renewal the server's) and here, with a quote that really expired on the server's clock
 *   and a price that really changed on the chain's feed, paid through to `succeeded` at the renewed amount;
 * - an unknown method is rejected before anything is signed: sdkWallet.pay.refusals and sdkWallet.pay.build;
 * - a 5xx is retried and then succeeds: sdkWallet.retries, sdkWallet.pay.build, sdkMerchant.retries, and here the
 *   502 of a lost confirm;
 * - a confirm retried after a lost response does not pay twice: sdkWallet.quotes (signed once) and here, while the
 *   server's jobs run, on the chain (one relay or one transaction, one debit) and at the shop (one fulfilment).
 *
 * One server for the file, as production runs it (harness.ts): background jobs, the real clock, the shared anvil.
 */
import assert from 'node:assert/strict';
import { parseEther, type Hex } from 'viem';
import { PayError, type PayableOption } from '@paygate/sdk-wallet';
import { useChainSnapshots } from '../helpers/chain.js';
import { startProxy, type Proxy } from '../sdk/helpers.js';
import {
  alignChainClock,
  eventually,
  QUOTE_TTL_S,
  startE2e,
  SUCCEEDED_EVENTS,
  type Buyer,
  type Delivery,
  type E2e,
} from './harness.js';
import { receiptOf, transactionOf } from '../helpers/wait.js';

describe('e2e.evm: merchant SDK, wallet SDK and webhook receiver on a real server and anvil', function () {
  // A first start of the shared anvil, and the merchant's polling (every 2 s), take longer than mocha's default.
  this.timeout(180_000);
  let e: E2e;
  before(async () => {
    e = await startE2e();
  });
  after(() => e?.close());
  useChainSnapshots();
  beforeEach(() => alignChainClock(e.local));
  // Aborts what a test left waiting (the merchant's polling of a test that failed before awaiting it).
  let leftovers: AbortController;
  beforeEach(() => (leftovers = new AbortController()));
  afterEach(() => leftovers.abort());

  /** The merchant's return page, waiting while the buyer pays. */
  function merchantWaits(paymentId: string) {
    const waiting = e.merchant.waitForFinal(paymentId, { timeoutMs: 30_000, signal: leftovers.signal });
    waiting.catch(() => undefined);
    return waiting;
  }

  const signing = (b: Buyer) => b.log.filter((m) => m === 'eth_signTypedData_v4' || m === 'eth_sendTransaction');
  const ethBalance = (address: Hex) => e.local.clients.public.getBalance({ address });
  const sentBy = (address: Hex) => e.local.clients.public.getTransactionCount({ address });

  it('gasless (EIP-3009): created, paid with a signature only, succeeded for the merchant, fulfilled once even when redelivered', async () => {
    const buyer = await e.buyer({ tusd: 100_000_000n });
    const buyerEther = await ethBalance(buyer.address);

    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-gasless-1',
    });
    assert.ok(created.gatewayUrl.endsWith(`/pay/${created.paymentId}`), created.gatewayUrl);
    const waiting = merchantWaits(created.paymentId);

    const wallet = e.wallet();
    const found = await wallet.getOptions({ paymentLink: created.gatewayUrl, accounts: [buyer.caip10] });
    assert.equal(found.paymentId, created.paymentId);
    const option = found.options.find((o) => o.amount.unit === `caip19/${e.tusd}`);
    assert.ok(option, `a TUSD option: ${JSON.stringify(found.options)}`);
    assert.equal(option.amount.value, '12500000', '12.50 USD in TUSD, pegged 1:1');
    assert.equal(option.expiresAt, null, 'a pegged stablecoin involves no rate, so no quote expiry');
    assert.deepEqual(
      option.actions.map((a) => a.type === 'walletRpc' && a.data.method),
      ['eth_signTypedData_v4'],
    );

    const final = await wallet.pay(option, { eip155: buyer.provider });
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.match(final.info?.txId ?? '', /^0x[0-9a-f]{64}$/);
    assert.deepEqual([final.info?.optionAmount.unit, final.info?.optionAmount.value], [`caip19/${e.tusd}`, '12500000']);
    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });

    // Gasless: the buyer signed once and sent nothing; the relayer's transaction moved the tokens.
    assert.deepEqual(signing(buyer), ['eth_signTypedData_v4']);
    assert.equal(await sentBy(buyer.address), 0);
    assert.equal(await ethBalance(buyer.address), buyerEther);
    assert.equal(await e.tusdBalance(buyer.address), 100_000_000n - 12_500_000n);
    assert.equal(await e.tusdBalance(e.settlement), 12_500_000n);
    const receipt = await receiptOf(e.local.clients.public, final.info!.txId as Hex);
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), e.local.clients.relayer.account.address.toLowerCase());
    const payment = await e.merchant.getPayment(created.paymentId);
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.success?.tx_id, final.info!.txId);
    assert.equal(payment.processing?.buyer_caip10, buyer.caip10);

    // The shop: every event verified and processed, the order fulfilled once, with the payment's transaction.
    const received = await e.allEventsReceived(created.paymentId);
    assert.ok(
      received.every((d) => d.answer === 204),
      JSON.stringify(received.map((d) => d.answer)),
    );
    assert.deepEqual(
      e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
      [['order-gasless-1', final.info!.txId]],
    );

    // Resent from the dashboard: a new delivery of the same event, which the shop recognises.
    const [succeeded] = await e.deliveriesOf(created.paymentId, 'payment.succeeded');
    assert.ok(succeeded);
    const resend = await e.dashboard('POST', `/v1/dashboard/webhook-deliveries/${succeeded.id}/resend`);
    assert.equal(resend.status, 202);
    const resent = (await resend.json()) as Delivery;
    assert.equal(resent.eventId, succeeded.eventId);
    assert.equal(resent.trigger, 'resend');
    await eventually(
      () => e.shop.deliveriesOf(created.paymentId).length === received.length + 1,
      'the resent delivery',
    );
    const again = e.shop.deliveriesOf(created.paymentId).at(-1)!;
    assert.equal(again.headers['webhook-id'], succeeded.eventId);
    assert.equal(again.answer, 204, 'a duplicate is answered 2xx, so Paygate stops sending it');
    assert.deepEqual(again.result, { outcome: 'duplicate', fulfilled: false });
    await eventually(
      async () => (await e.deliveriesOf(created.paymentId)).find((d) => d.id === resent.id)?.status === 'delivered',
      'the resend recorded as delivered',
    );

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
  });

  it('direct (ether, the buyer’s own transaction): succeeded for the merchant, fulfilled once even when resent', async () => {
    const buyer = await e.buyer({ wei: parseEther('1') });
    const created = await e.merchant.createPayment({
      amount: { unit: 'iso4217/USD', value: '1250' },
      referenceId: 'order-direct-1',
    });
    const waiting = merchantWaits(created.paymentId);

    const wallet = e.wallet();
    const { options } = await wallet.getOptions({ paymentLink: created.gatewayUrl, accounts: [buyer.caip10] });
    // No TUSD, so ether is the only option: priced by the ETH/USD feed on the chain, with a quote expiry.
    assert.deepEqual(
      options.map((o) => o.amount.unit),
      [`caip19/${e.ether}`],
    );
    const option = options[0]!;
    // 12.50 USD at 3000 USD per ETH, rounded up to the wei.
    assert.equal(option.amount.value, '4166666666666667');
    assert.equal(typeof option.expiresAt, 'number');
    assert.ok(option.expiresAt! * 1000 > Date.now() && option.expiresAt! <= Date.now() / 1000 + QUOTE_TTL_S);
    assert.deepEqual(
      option.actions.map((a) => a.type === 'walletRpc' && a.data.method),
      ['eth_sendTransaction'],
    );

    const before = await ethBalance(e.settlement);
    let sent: string | undefined;
    const final = await wallet.pay(
      option,
      { eip155: buyer.provider },
      { onSigned: ({ request }) => void (sent = request.results[0] as string) },
    );
    assert.deepEqual([final.status, final.isFinal], ['succeeded', true]);
    assert.equal(final.info?.txId, sent, 'the buyer’s own transaction');
    assert.deepEqual(await waiting, { status: 'succeeded', isFinal: true, pollInMs: null });

    assert.deepEqual(signing(buyer), ['eth_sendTransaction']);
    assert.equal(await sentBy(buyer.address), 1);
    assert.equal(await ethBalance(e.settlement), before + 4_166_666_666_666_667n);
    const tx = await transactionOf(e.local.clients.public, sent as Hex);
    assert.equal(tx.from.toLowerCase(), buyer.address.toLowerCase());
    assert.equal(tx.value, 4_166_666_666_666_667n);

    const received = await e.allEventsReceived(created.paymentId);
    assert.ok(received.every((d) => d.answer === 204));
    const processing = received.find((d) => d.event?.type === 'payment.processing')!.event!.data.processing;
    assert.deepEqual(processing?.option_amount, { unit: `caip19/${e.ether}`, value: '4166666666666667' });
    assert.deepEqual(
      e.shop.fulfilmentsOf(created.paymentId).map((f) => [f.referenceId, f.txId]),
      [['order-direct-1', sent]],
    );

    // Every delivery of the payment resent at once: each arrives again, none fulfils again.
    const all = await e.deliveriesOf(created.paymentId);
    assert.equal(all.length, SUCCEEDED_EVENTS.length);
    for (const d of all) {
      assert.equal((await e.dashboard('POST', `/v1/dashboard/webhook-deliveries/${d.id}/resend`)).status, 202);
    }
    await eventually(
      () => e.shop.deliveriesOf(created.paymentId).length === received.length + all.length,
      'the resent deliveries',
    );
    const resent = e.shop.deliveriesOf(created.paymentId).slice(received.length);
    assert.ok(resent.every((d) => d.answer === 204 && d.result?.outcome === 'duplicate' && !d.result.fulfilled));
    assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1, 'fulfilled exactly once');
  });

  describe('error paths', () => {
    it('an expired quote is fetched again, and signed only after onQuoteChange agrees to the new price', async () => {
      const buyer = await e.buyer({ wei: parseEther('1') });
      const created = await e.merchant.createPayment({
        amount: { unit: 'iso4217/USD', value: '1250' },
        referenceId: 'order-requote-1',
      });
      const wallet = e.wallet();
      const { options } = await wallet.getOptions({ paymentLink: created.gatewayUrl, accounts: [buyer.caip10] });
      const quoted = options.find((o) => o.amount.unit === `caip19/${e.ether}`)!;
      assert.equal(quoted.amount.value, '4166666666666667');

      // Ether rises to 3125 USD on the feed, and the quote runs out by the server's clock and the wallet's alike.
      const chainNow = (await e.local.clients.public.getBlock({ blockTag: 'latest' })).timestamp;
      await e.feed.setAnswer(3125_0000_0000n, chainNow);
      await eventually(() => Date.now() >= quoted.expiresAt! * 1000, 'the quote to expire', (QUOTE_TTL_S + 1) * 1000);

      // The app declines: nothing is asked of the wallet, nothing moves.
      const asked: [PayableOption, PayableOption][] = [];
      const declined = await wallet
        .pay(quoted, { eip155: buyer.provider }, { onQuoteChange: (p, n) => (asked.push([p, n]), false) })
        .catch((error: unknown) => error);
      assert.ok(declined instanceof PayError, String(declined));
      assert.equal(declined.reason, 'quote_changed');
      assert.equal(asked.length, 1);
      assert.equal(asked[0]![0], quoted);
      // 12.50 USD at 3125 USD per ETH: exactly 0.004 ETH.
      assert.equal(asked[0]![1].amount.value, '4000000000000000');
      assert.equal(declined.quote?.next.amount.value, '4000000000000000');
      assert.deepEqual(buyer.log, [], 'the wallet was asked nothing');
      assert.equal(await sentBy(buyer.address), 0);
      assert.equal((await e.merchant.getStatus(created.paymentId)).status, 'pending');

      // The app agrees: the renewed quote is what the wallet sends, and only after the app's answer.
      const final = await wallet.pay(
        quoted,
        { eip155: buyer.provider },
        {
          onQuoteChange: (previous, next) => {
            buyer.log.push(`onQuoteChange ${previous.amount.value} → ${next.amount.value}`);
            return true;
          },
        },
      );
      assert.equal(final.status, 'succeeded');
      assert.deepEqual(
        buyer.log.filter((m) => m !== 'eth_chainId'),
        ['onQuoteChange 4166666666666667 → 4000000000000000', 'eth_sendTransaction'],
      );
      assert.deepEqual(
        [final.info?.optionAmount.unit, final.info?.optionAmount.value],
        [`caip19/${e.ether}`, '4000000000000000'],
      );
      const tx = await transactionOf(e.local.clients.public, final.info!.txId as Hex);
      assert.equal(tx.value, 4_000_000_000_000_000n, 'the renewed amount, not the expired one');
      assert.equal(await sentBy(buyer.address), 1);
      assert.equal(await ethBalance(e.settlement), 4_000_000_000_000_000n);

      assert.deepEqual(await e.merchant.waitForFinal(created.paymentId, { timeoutMs: 10_000 }), {
        status: 'succeeded',
        isFinal: true,
        pollInMs: null,
      });
      await e.allEventsReceived(created.paymentId);
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

      it('gasless: a confirm whose answer is lost (502) is retried with the same signature; relayed once, paid once, fulfilled once', async () => {
        const buyer = await e.buyer({ tusd: 100_000_000n });
        const created = await e.merchant.createPayment({
          amount: { unit: 'iso4217/USD', value: '1250' },
          referenceId: 'order-lost-confirm-1',
        });
        const wallet = e.wallet({ baseUrl: proxy.url });
        const { options } = await wallet.getOptions({ paymentId: created.paymentId, accounts: [buyer.caip10] });
        const option = options.find((o) => o.amount.unit === `caip19/${e.tusd}`)!;
        const relayer = e.local.clients.relayer.account.address;
        const relayed = await sentBy(relayer);

        proxy.failNext(
          { method: 'POST', path: `/v1/gateway/payment/${created.paymentId}/confirm` },
          { kind: 'fail-after-forward' },
        );
        const from = proxy.log.length;
        const final = await wallet.pay(option, { eip155: buyer.provider });
        assert.equal(final.status, 'succeeded');

        const sent = confirms(created.paymentId, from);
        assert.deepEqual(
          sent.map((x) => x.outcome),
          [502, 200],
          'the server had accepted the first; the retry repeats it',
        );
        assert.equal(sent[1]!.body, sent[0]!.body, 'the same signature again');
        assert.deepEqual(signing(buyer), ['eth_signTypedData_v4'], 'signed once');

        assert.deepEqual(await e.merchant.waitForFinal(created.paymentId, { timeoutMs: 10_000 }), {
          status: 'succeeded',
          isFinal: true,
          pollInMs: null,
        });
        await e.allEventsReceived(created.paymentId);
        assert.equal(await sentBy(relayer), relayed + 1, 'relayed once');
        assert.equal(await e.tusdBalance(buyer.address), 100_000_000n - 12_500_000n, 'the buyer paid once');
        assert.equal(await e.tusdBalance(e.settlement), 12_500_000n);
        assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS, 'one processing, one success');
        assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1);
      });

      it('direct: a confirm whose connection drops after the server had it is retried; one transaction, fulfilled once', async () => {
        const buyer = await e.buyer({ wei: parseEther('1') });
        const created = await e.merchant.createPayment({
          amount: { unit: 'iso4217/USD', value: '1250' },
          referenceId: 'order-lost-confirm-2',
        });
        const wallet = e.wallet({ baseUrl: proxy.url });
        const { options } = await wallet.getOptions({ paymentId: created.paymentId, accounts: [buyer.caip10] });
        const option = options.find((o) => o.amount.unit === `caip19/${e.ether}`)!;

        proxy.failNext(
          { method: 'POST', path: `/v1/gateway/payment/${created.paymentId}/confirm` },
          { kind: 'drop-after-forward' },
        );
        const from = proxy.log.length;
        const final = await wallet.pay(option, { eip155: buyer.provider });
        assert.equal(final.status, 'succeeded');
        const sent = confirms(created.paymentId, from);
        assert.deepEqual(
          sent.map((x) => x.outcome),
          ['dropped', 200],
        );
        assert.equal(sent[1]!.body, sent[0]!.body, 'the same transaction hash again');
        assert.deepEqual(signing(buyer), ['eth_sendTransaction'], 'sent once');
        assert.equal(await sentBy(buyer.address), 1);
        assert.equal(await ethBalance(e.settlement), BigInt(option.amount.value));

        await e.allEventsReceived(created.paymentId);
        assert.deepEqual(await e.eventTypes(created.paymentId), SUCCEEDED_EVENTS);
        assert.equal(e.shop.fulfilmentsOf(created.paymentId).length, 1);
      });
    });
  });
});
