import assert from 'node:assert/strict';
import { fetchTransaction, parseURL, type TransactionRequestURL } from '@solana/pay';
import { Connection, Keypair } from '@solana/web3.js';
import type { Address } from '@solana/kit';
import { useChainSnapshots } from '../helpers/chain.js';
import { startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** Solana Pay links are https: the deployment's public origin, which this test's plain-HTTP listener stands behind. */
const PUBLIC = 'https://pay.example';

describe('hosted checkout page: Solana', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('pays from a Wallet Standard wallet with both wallets connected: every account is offered, the fee payer pays the fees', async () => {
    const evmBuyer = await h.buyer(0n, 10n ** 18n);
    const buyer = await h.solanaBuyer(100_000_000n);
    const paymentId = await h.payment();
    const { page, solana } = await h.open(paymentId, { evm: { buyer: evmBuyer }, solana: { signer: buyer.signer } });
    await h.view(page, 'open');
    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    await page.getByTestId('option').first().waitFor();
    await page.getByRole('button', { name: 'Connect Test Solana Wallet' }).click();
    const option = page
      .getByTestId('option')
      .filter({ hasText: 'TUSD' })
      .and(page.locator('[data-account^="solana:"]'));
    await option.waitFor();
    const accounts = await page.getByTestId('option').evaluateAll((items) => items.map((i) => i.dataset.account));
    assert.ok(
      accounts.some((a) => a?.startsWith('eip155:31337:')),
      `an EVM option too: ${accounts.join(', ')}`,
    );
    assert.match((await option.textContent()) ?? '', /No gas needed/);
    await h.accessible(page, 'options of two wallets');
    await h.capture(page, 'options-two-wallets');

    await option.getByRole('button', { name: /^Pay 12\.50 TUSD/ }).click();
    await h.settleTo(paymentId, 'succeeded');
    await h.view(page, 'succeeded');
    assert.ok(solana!.calls.includes('solana:signTransaction'), 'the wallet signed; the gateway broadcast');
    assert.equal(await page.getByTestId('paid-amount').textContent(), '12.50 TUSD');
    await h.fulfilled(paymentId);
  });

  it('any Solana Pay wallet pays by scanning: the QR link, the @solana/pay client, and the page follows to success', async () => {
    (h.runtime.config as { publicBaseUrl: string }).publicBaseUrl = PUBLIC;
    try {
      const paymentId = await h.payment();
      const { page } = await h.open(paymentId);
      await h.view(page, 'open');
      // No browser wallet here: the phone panel is open from the start, with one QR code, of the buyer's choice.
      await page.getByRole('button', { name: 'Solana Pay', exact: true }).click();
      assert.ok(await page.getByRole('img', { name: 'Solana Pay QR code' }).isVisible());
      await h.accessible(page, 'the phone panel');
      const scanned = (await page.getByTestId('solana-pay-link').textContent()) ?? '';
      await page.getByRole('button', { name: 'Payment link', exact: true }).click();
      assert.equal(await page.getByTestId('payment-link').inputValue(), `${PUBLIC}/pay/${paymentId}`);
      await h.capture(page, 'phone');
      const parsed = parseURL(scanned) as TransactionRequestURL;
      assert.equal(parsed.link.href, `${PUBLIC}/v1/gateway/payment/${paymentId}/solana-pay`);
      const keypair = Keypair.generate();
      await h.solana.faucet.mintTokens(
        keypair.publicKey.toBase58() as Address,
        h.solana.mints.tusd.address,
        100_000_000n,
      );
      const connection = new Connection(h.solana.rpcUrl, 'confirmed');
      const reachable = new URL(`${parsed.link.pathname}${parsed.link.search}`, h.server.url);
      const transaction = await fetchTransaction(connection, keypair.publicKey, reachable);
      transaction.partialSign(keypair);
      await connection.sendRawTransaction(transaction.serialize());

      await h.settleTo(paymentId, 'succeeded');
      await h.view(page, 'succeeded');
      await h.fulfilled(paymentId);
    } finally {
      (h.runtime.config as { publicBaseUrl: string }).publicBaseUrl = h.server.url;
    }
  });
});
