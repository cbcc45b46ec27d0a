import assert from 'node:assert/strict';
import { PayError, isPaymentId, parsePaymentLink } from '@paygate/sdk-wallet';
import { startWalletHarness, type WalletHarness } from './walletHelpers.js';

const ID = 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd';

describe('sdkWallet.links', () => {
  let h: WalletHarness;
  before(async () => {
    h = await startWalletHarness({ config: { PUBLIC_BASE_URL: 'https://pay.example.com/shop' } });
  });
  after(() => h.close());

  it('the gatewayUrl the merchant API answers parses to its payment, which the gateway then reads', async () => {
    const { paymentId, gatewayUrl } = await h.createPayment();
    assert.equal(gatewayUrl, `https://pay.example.com/shop/pay/${paymentId}`);
    const parsed = parsePaymentLink(gatewayUrl);
    assert.equal(parsed, paymentId);
    assert.equal((await h.wallet().getPayment(parsed)).status, 'requires_action');
  });

  it('accepts a gateway URL with a query, a fragment, a trailing slash or spaces around, and a bare id', () => {
    for (const link of [
      `https://pay.example.com/pay/${ID}`,
      `http://localhost:3000/pay/${ID}`,
      `https://pay.example.com/a/b/pay/${ID}/`,
      `https://pay.example.com/pay/${ID}?utm_source=qr#top`,
      `  https://pay.example.com/pay/${ID}\n`,
      ID,
      ` ${ID} `,
    ]) {
      assert.equal(parsePaymentLink(link), ID, link);
    }
  });

  it('refuses anything else with a clear PayError (invalid_payment_link)', () => {
    for (const link of [
      '',
      'hello',
      'pay_short',
      `pay_${'A'.repeat(25)}`,
      `https://pay.example.com/checkout/${ID}`,
      `https://pay.example.com/pay/${ID}/collect`,
      `https://pay.example.com/pay/pay_short`,
      `ftp://pay.example.com/pay/${ID}`,
      `javascript:alert(1)//pay/${ID}`,
      `https://pay.example.com/?id=${ID}`,
    ]) {
      assert.throws(
        () => parsePaymentLink(link),
        (e: unknown) =>
          e instanceof PayError &&
          e.reason === 'invalid_payment_link' &&
          /gatewayUrl/.test(e.message) &&
          e.message.includes(link.trim().slice(0, 20)),
        link,
      );
    }
    assert.throws(() => parsePaymentLink(undefined as unknown as string), { reason: 'invalid_payment_link' });
    assert.equal(isPaymentId(ID), true);
    assert.equal(isPaymentId(`${ID}x`), false);
  });

  it('getOptions refuses a bad link or id before any request, and needs exactly one of them', async () => {
    const wallet = h.wallet();
    const from = h.proxy.log.length;
    const accounts = ['eip155:31337:0x90F79bf6EB2c4f870365E785982E1f101E93b906'];
    await assert.rejects(wallet.getOptions({ paymentLink: 'https://pay.example.com/nope', accounts }), {
      name: 'PayError',
      reason: 'invalid_payment_link',
    });
    await assert.rejects(wallet.getOptions({ paymentId: 'https://pay.example.com/pay/x', accounts }), {
      reason: 'invalid_payment_link',
    });
    await assert.rejects(wallet.getOptions({ accounts } as never), TypeError);
    await assert.rejects(wallet.getOptions({ paymentId: ID, paymentLink: ID, accounts } as never), TypeError);
    assert.equal(h.proxy.log.length, from);
  });
});
