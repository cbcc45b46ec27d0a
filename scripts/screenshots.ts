/**
 * `npm run screenshots`: the README's images (docs/images/*.png), taken of the shipped app as a new user runs it.
 * `paygate start` on a fresh SQLite file with the local chains (scripts/screenshots/paygate.ts), the system Chromium
 * through playwright-core, the demo owner's real sign-in, and every change made the way a merchant or buyer makes it:
 * the logo uploaded in Settings, keys, links, invoices and terminals created on their screens, payments paid by
 * a buyer's wallet on the local chain (funded by the dev faucet) sending tokens to the payment's deposit address, one refunded in
 * part from the payment page, one paid only in part. Each image is 1280 px wide, except the payment link's page,
 * which the README shows on a phone (375 px).
 *
 *   npm run screenshots               builds web/ first, writes docs/images/
 *   npm run screenshots -- --out DIR  writes elsewhere (to compare before replacing)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { launchChromium } from '../test/collect/browser.js';
import { installEvmWallet } from '../test/checkout/wallets.js';
import { demoLogo } from './screenshots/logo.js';
import { startPaygate, until, type Paygate } from './screenshots/paygate.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs/images' } } });
const OUT = resolve(values.out!);

interface Chain {
  caip2: string;
  namespace: string;
  rpcUrl: string;
  assets: { caip19: string; symbol: string }[];
}
interface Deposit {
  deposits: { chain: string; address: string; amount: { value: string }; received: { value: string } }[];
}

/** The whole page, or only the window when a dialog is open (its backdrop covers the window, not the page). */
async function shoot(page: Page, name: string, { width = 1280, fullPage = true } = {}): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await page.mouse.move(0, 0);
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage });
  console.log(`wrote ${join(values.out!, `${name}.png`)}`);
}

interface Buyer {
  evm: Chain;
  tusd: string;
  account: PrivateKeyAccount;
  /** A plain ERC-20 transfer of TUSD from the buyer's wallet, mined. */
  transfer(to: string, value: bigint): Promise<void>;
}

/** A buyer with 100 TUSD (and gas) from the local chain's faucet. */
async function newBuyer(p: Paygate, evm: Chain): Promise<Buyer> {
  const tusd = evm.assets.find((a) => a.symbol === 'TUSD')!.caip19;
  const account = privateKeyToAccount(generatePrivateKey());
  await p.faucet(`${evm.caip2}:${account.address}`, tusd, '100000000');
  const chain = defineChain({
    id: Number(evm.caip2.split(':')[1]),
    name: 'Local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [evm.rpcUrl] } },
  });
  const wallet = createWalletClient({ account, chain, transport: http() });
  const reader = createPublicClient({ chain, transport: http() });
  const token = tusd.split(':').pop() as Address;
  return {
    evm,
    tusd,
    account,
    async transfer(to, value) {
      const hash = await wallet.writeContract({
        address: token,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Address, value],
      });
      await reader.waitForTransactionReceipt({ hash });
    },
  };
}

/** The buyer pays a collected payment by a plain transfer to its EVM deposit address: all of it, or `value`. */
async function payDeposit(p: Paygate, buyer: Buyer, paymentId: string, value?: string): Promise<void> {
  const { evm } = buyer;
  const { deposits } = await p.gateway<Deposit>(`/v1/gateway/payment/${paymentId}/deposit`);
  const deposit = deposits.find((d) => d.chain === evm.caip2)!;
  await buyer.transfer(deposit.address, BigInt(value ?? deposit.amount.value));
  if (value === undefined) {
    await until(`${paymentId} to succeed`, async () => {
      const payment = await p.merchant<{ status: string }>('GET', `/v1/merchant/payment/${paymentId}`);
      return payment.status === 'succeeded';
    });
  } else {
    await until(`${paymentId}'s deposit to be seen`, async () => {
      const seen = await p.gateway<Deposit>(`/v1/gateway/payment/${paymentId}/deposit`);
      return seen.deposits.some((d) => d.chain === evm.caip2 && d.received.value !== '0');
    });
  }
}

const newPayment = (p: Paygate, value: string, referenceId: string, description: string) =>
  p
    .merchant<{ paymentId: string }>(
      'POST',
      '/v1/merchant/payment',
      { amount: { unit: 'iso4217/USD', value }, referenceId, description },
      201,
    )
    .then((r) => r.paymentId);

async function run(p: Paygate, browser: Browser): Promise<void> {
  const { chains } = await fetch(`${p.url}/v1/dev/chains`).then((r) => r.json() as Promise<{ chains: Chain[] }>);
  const evm = chains.find((c) => c.namespace === 'eip155')!;
  const chainId = Number(evm.caip2.split(':')[1]);
  const buyer = await newBuyer(p, evm);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const go = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();

  // Sign in as the demo owner, and upload the shop's logo in Settings.
  await page.goto(`${p.url}/dashboard/login`);
  await page.getByLabel('Email').fill(p.credentials.dashboard.email);
  await page.getByLabel('Password').fill(p.credentials.dashboard.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await go('Settings');
  const logo = page.getByRole('region', { name: 'Logo' });
  await logo
    .getByLabel('Upload a logo')
    .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: demoLogo(128) });
  await logo.getByRole('status').getByText('Logo uploaded').waitFor();
  await logo.getByRole('img').evaluate((img) => (img as HTMLImageElement).decode());
  await shoot(page, 'dashboard-settings');

  // API keys: the demo's partner key (the operator's) and a key of this merchant.
  await go('API keys');
  await page.getByRole('button', { name: 'Create a key' }).click();
  await page.getByLabel('Label (optional)').fill('shop backend');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByRole('dialog', { name: 'Your new API key' }).getByRole('button', { name: 'I have saved it' }).click();
  await page.locator('tr', { hasText: 'shop backend' }).waitFor();
  await shoot(page, 'dashboard');

  // The checkout, in direct settlement (the demo's mode): a buyer's EVM wallet connected, its ways to pay.
  const checkoutId = await newPayment(p, '1250', 'order_1042', 'Two coffees');
  const buyerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await installEvmWallet(buyerContext, { account: buyer.account, rpcUrls: { [chainId]: evm.rpcUrl }, chainId });
  const checkout = await buyerContext.newPage();
  await checkout.goto(`${p.url}/pay/${checkoutId}`);
  await checkout.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
  await until('two ways to pay', async () => (await checkout.getByTestId('option').count()) >= 2);
  await shoot(checkout, 'checkout');

  // From here on the merchant is paid in collected settlement: payments get deposit addresses, refunds go on chain.
  p.admin('set-settlement-mode', p.credentials.merchantId, 'collected');
  const paid = await newPayment(p, '2400', 'order_1043', 'Coffee beans, 1 kg');
  await payDeposit(p, buyer, paid);
  const partly = await newPayment(p, '1250', 'order_1044', 'Two coffees');
  await payDeposit(p, buyer, partly, '5000000');

  // The payment page's Refund dialog, filled in; the refund is then sent (the buyer's claim link).
  await page.goto(`${p.url}/dashboard/payments/${paid}`);
  await page
    .getByRole('region', { name: 'Refunds', exact: true })
    .getByRole('button', { name: 'Refund on chain' })
    .click();
  const refund = page.getByRole('dialog', { name: 'Refund on chain' });
  await refund.getByLabel('Amount in TUSD').fill('10');
  await shoot(page, 'dashboard-refund', { fullPage: false });
  await refund.getByRole('button', { name: 'Send refund' }).click();
  const claim = page.getByRole('dialog', { name: "The buyer's claim link" });
  await claim.getByRole('button', { name: 'I have saved it' }).click();
  await page.getByText('Waiting for the buyer to claim').waitFor();

  // A donation link: created on its screen, chosen on its page (a phone), paid, and what it has taken.
  await go('Payment links');
  await page.getByRole('button', { name: 'Create a link' }).click();
  const create = page.getByRole('dialog', { name: 'Create a payment link' });
  await create.getByLabel('What it is for').fill('Support the community radio');
  await create.getByLabel('The buyer chooses (donations, tips)').check();
  await create.getByLabel('Minimum', { exact: true }).fill('1');
  await create.getByLabel('Maximum', { exact: true }).fill('500');
  await create.getByRole('button', { name: 'Create link' }).click();
  const share = page.getByRole('dialog', { name: 'Share the payment link' });
  const linkUrl = (await share.locator('p.mono').textContent())!;
  await share.getByRole('button', { name: 'Close' }).click();
  const phone = await browser.newContext({ viewport: { width: 375, height: 900 } });
  const linkPage = await phone.newPage();
  await linkPage.goto(linkUrl);
  await linkPage.getByLabel('Amount (USD)').fill('25.00');
  await shoot(linkPage, 'link-page', { width: 375 });
  await linkPage.getByRole('button', { name: 'Continue to payment' }).click();
  await linkPage.waitForURL(/\/pay\/pay_/);
  await payDeposit(p, buyer, new URL(linkPage.url()).pathname.split('/')[2]!);
  await page.reload();
  await page.locator('tr', { hasText: 'Support the community radio' }).getByText('$25.00').first().waitFor();
  await shoot(page, 'dashboard-links');

  // An invoice, created on its screen, and its page as the buyer opens it.
  await go('Invoices');
  await page.getByRole('button', { name: 'Create an invoice' }).click();
  const invoice = page.getByRole('dialog', { name: 'Create an invoice' });
  await invoice.getByLabel('Item').fill('Website design, March');
  await invoice.getByLabel('Quantity').fill('2');
  await invoice.getByLabel('Price of one').fill('450.00');
  await invoice.getByLabel("Buyer's name").fill('Ada Lovelace');
  await invoice.getByLabel("Buyer's email").fill('ada@example.com');
  await invoice.getByLabel('Notes (optional)').fill('Thank you for your business.');
  await invoice.getByRole('button', { name: 'Create invoice' }).click();
  await invoice.waitFor({ state: 'detached' });
  const row = page.locator('tr', { hasText: 'Ada Lovelace' });
  await row.waitFor();
  await shoot(page, 'dashboard-invoices');
  const invoiceUrl = (await row.getByRole('link', { name: /^Open page/ }).getAttribute('href'))!;
  const invoicePage = await context.newPage();
  await invoicePage.goto(new URL(invoiceUrl, p.url).href);
  await invoicePage.getByRole('button', { name: 'Pay', exact: true }).waitFor();
  await shoot(invoicePage, 'invoice');

  // A point-of-sale terminal, created on its screen, and the counter's screen ringing up a sale.
  await go('Point of sale');
  await page.getByRole('button', { name: 'Create a terminal' }).click();
  await page.getByLabel('Name').fill('Counter');
  await page.getByLabel('Catalogue (optional)').fill('Espresso = 3.00\nCroissant = 4.25');
  await page.getByLabel('Tip buttons (optional)').fill('10, 15, 20');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const shown = page.getByRole('dialog', { name: "Your terminal's POS access key" });
  const key = (await shown.locator('[data-secret]').textContent())!;
  const screen = (await shown.getByRole('link').first().getAttribute('href'))!;
  await shown.getByRole('button', { name: 'I have saved it' }).click();
  await page.locator('tr', { hasText: 'Counter' }).waitFor();
  await shoot(page, 'dashboard-pos');
  const counter = await context.newPage();
  await counter.goto(new URL(screen, p.url).href);
  await counter.getByLabel('POS access key').fill(key);
  await counter.getByRole('button', { name: 'Save on this device' }).click();
  const keypad = counter.getByRole('group', { name: 'Keypad' });
  for (const digit of '1250') await keypad.getByRole('button', { name: digit, exact: true }).click();
  await counter.getByRole('group', { name: 'Tip' }).getByRole('button', { name: '10 %' }).click();
  await counter.getByRole('button', { name: 'Charge $13.75' }).waitFor();
  await shoot(counter, 'pos');
}

const built = spawnSync('npm', ['run', 'build', '-w', '@paygate/web'], { stdio: 'ignore' });
if (built.status !== 0) throw new Error('npm run build -w @paygate/web failed');
mkdirSync(OUT, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'paygate-screenshots-'));
const paygate = await startPaygate(dataDir);
const browser = await launchChromium();
try {
  await run(paygate, browser);
} finally {
  await browser.close();
  await paygate.close();
  rmSync(dataDir, { recursive: true, force: true });
}
