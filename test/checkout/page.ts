/**
 * The hosted checkout in a real Chromium: the gateway checkout harness (a real server over the run's local chains,
 * with the business clock a test moves) serving the built page, the merchant's webhook receiver (the shop, which
 * verifies every delivery), and wallets injected into the page (wallets.ts) that sign with real keys in Node.
 *
 * Every view is checked with axe and photographed at 1280 and 375 px into test-results/checkout/ (CI keeps them).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import type { KeyPairSigner } from '@solana/kit';
import type { Chains } from '../../server/src/chains/index.js';
import { BALANCE_CACHE_MS } from '../../server/src/chains/eip155/adapter.js';
import { launchChromium } from '../collect/browser.js';
import { startShop, type Shop } from '../e2e/harness.js';
import { startCheckoutHarness, type Buyer, type CheckoutHarness, type StatusAnswer } from '../gateway/checkout.js';
import { expectJson } from '../gateway/harness.js';
import { assertAccessible, captureWidths } from '../helpers/browser.js';
import { deadRpcUrl } from '../helpers/chain.js';
import { driveJobsUntil, eventually } from '../helpers/wait.js';
import { installEvmWallet, installSolanaWallet, type EvmWallet, type SolanaWallet } from './wallets.js';

export const SHOTS_DIR = join(process.cwd(), 'test-results', 'checkout');

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  evm: EvmWallet | null;
  solana: SolanaWallet | null;
  /** Every request the page made, by URL. */
  requests: string[];
}

export interface OpenOptions {
  lang?: string;
  acceptLanguage?: string;
  width?: number;
  /** An EVM wallet for this buyer (announced through EIP-6963), on `chainId` (default the local chain). */
  evm?: { buyer: Buyer; chainId?: number; addedChains?: number[] };
  /** A Wallet Standard Solana wallet holding this key pair. */
  solana?: { signer: KeyPairSigner };
  /** Install Playwright's clock, so a test can move the page's time with `page.clock.fastForward`. */
  clock?: boolean;
  /** Answer every gateway call with 503 until the test unroutes `<server>/v1/gateway/**` (the gateway unreachable). */
  blockGateway?: boolean;
}

export interface CheckoutPageHarness extends CheckoutHarness {
  browser: Browser;
  shop: Shop;
  /** A payment created through the merchant API, with redirect URLs when given. */
  payment(options?: {
    amount?: { unit: string; value: string };
    expiresInSeconds?: number;
    successUrl?: string;
    errorUrl?: string;
    /** More createPayment fields (what was sold: description, lineItems, buyer, metadata). */
    extra?: Record<string, unknown>;
  }): Promise<string>;
  open(paymentId: string, options?: OpenOptions): Promise<OpenedPage>;
  /** Waits for the view (`data-view`) to be shown. */
  view(page: Page, name: string): Promise<void>;
  /** axe: no serious or critical violation in what the page shows now. */
  accessible(page: Page, what: string): Promise<void>;
  /** axe and screenshots of the page at every width, named `<name>-<width>.png`. */
  capture(page: Page, name: string): Promise<void>;
  /**
   * Moves the server's balance cache past its life, as the minutes a buyer spends funding a wallet would: the next
   * listing reads the balances on chain.
   */
  balancesAge(): void;
  /** Runs the jobs, moving the business clock, until the payment is `status`. */
  settleTo(paymentId: string, status: string): Promise<StatusAnswer>;
  /** Waits until the shop has verified and fulfilled the payment's `payment.succeeded`. */
  fulfilled(paymentId: string): Promise<void>;
  /** Sets the merchant's settlement mode directly, as an operator's earlier choice would have. */
  setMode(mode: 'direct' | 'collected'): Promise<void>;
  close(): Promise<void>;
}

export async function startCheckoutPage(options: { chains?: Chains; config?: Record<string, string> } = {}) {
  // The wall clock of the server's balance cache, which `balancesAge` moves on: the cache's life would otherwise pass
  // or not depending on how fast the test runs.
  let wallSkipped = 0;
  const h = await startCheckoutHarness({
    chains: options.chains,
    config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true', ...options.config },
    checkout: { evm: { wallNow: () => performance.now() + wallSkipped } },
  });
  // Links the server hands out (the collect form, the payment link) must point at this server, which has only now
  // got its port.
  (h.runtime.config as { publicBaseUrl: string }).publicBaseUrl = h.server.url;
  const browser = await launchChromium();
  const shop = await startShop({ now: h.clock.now });
  const dashboard = (method: string, path: string, body?: unknown) =>
    fetch(`${h.server.url}${path}`, {
      method,
      headers: {
        'Api-Key': h.account.testKey,
        'Merchant-Id': h.account.merchantId,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const endpoint = await expectJson<{ secret: string }>(
    await dashboard('POST', '/v1/dashboard/webhook-endpoint', { url: shop.url }),
    201,
  );
  shop.useSecret(endpoint.secret);
  mkdirSync(SHOTS_DIR, { recursive: true });
  const contexts: BrowserContext[] = [];
  const local = h.local;

  const harness: CheckoutPageHarness = {
    ...h,
    browser,
    shop,
    async payment(o = {}) {
      const body = {
        amount: o.amount ?? { unit: 'iso4217/USD', value: '1250' },
        referenceId: `order_${Math.random().toString(36).slice(2)}`,
        ...(o.expiresInSeconds ? { expiresAt: Math.floor(h.clock.now() / 1000) + o.expiresInSeconds } : {}),
        ...(o.successUrl || o.errorUrl ? { checkout: { successUrl: o.successUrl, errorUrl: o.errorUrl } } : {}),
        ...o.extra,
      };
      const created = await expectJson<{ paymentId: string }>(
        await dashboard('POST', '/v1/merchant/payment', body),
        201,
      );
      return created.paymentId;
    },
    async open(paymentId, o = {}) {
      const context = await browser.newContext({
        viewport: { width: o.width ?? 1280, height: 900 },
        ...(o.acceptLanguage ? { locale: o.acceptLanguage } : {}),
      });
      contexts.push(context);
      const page = await context.newPage();
      if (o.clock) await page.clock.install();
      const requests: string[] = [];
      page.on('request', (request: Request) => requests.push(request.url()));
      const evm = o.evm
        ? await installEvmWallet(context, {
            account: o.evm.buyer.account,
            // Chain 1 is only where a wallet may start; nothing is read from it.
            rpcUrls: { 1: await deadRpcUrl(), [local.config.chainId]: local.config.rpcUrl },
            chainId: o.evm.chainId ?? local.config.chainId,
            addedChains: o.evm.addedChains,
            name: 'Test EVM Wallet',
          })
        : null;
      const solana = o.solana
        ? await installSolanaWallet(context, {
            signer: o.solana.signer,
            rpcUrl: h.solana.rpcUrl,
            chain: h.solana.caip2 as `solana:${string}`,
            name: 'Test Solana Wallet',
          })
        : null;
      if (o.blockGateway) {
        await context.route(`${h.server.url}/v1/gateway/**`, (route) =>
          route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ code: 'internal_error', message: 'Service unavailable.' }),
          }),
        );
      }
      const query = o.lang ? `?lang=${o.lang}` : '';
      await page.goto(`${h.server.url}/pay/${paymentId}${query}`);
      return { page, context, evm, solana, requests };
    },
    async view(page, name) {
      await page.locator(`[data-view="${name}"]`).waitFor({ state: 'visible' });
    },
    accessible: (page, what) => assertAccessible(page, what),
    // At 1280 and 375 px: axe (no serious or critical violation at either width, issue 31) and no horizontal
    // scroll, the page must fit a 375 px phone.
    capture: (page, name) => captureWidths(page, SHOTS_DIR, name),
    balancesAge() {
      wallSkipped += BALANCE_CACHE_MS;
    },
    settleTo(paymentId, status) {
      return h.settle(paymentId, status);
    },
    async fulfilled(paymentId) {
      await driveJobsUntil(
        `the shop to fulfil ${paymentId}`,
        { clock: h.clock, drain: () => h.runtime.jobs.drain() },
        () => shop.fulfilmentsOf(paymentId).length > 0,
      );
      const verified = shop.deliveriesOf(paymentId).filter((d) => d.event?.type === 'payment.succeeded');
      assert.ok(verified.length > 0 && verified.every((d) => d.answer === 204), 'payment.succeeded was verified');
    },
    async setMode(mode) {
      await h.runtime.db.knex('merchants').where({ id: h.account.merchantId }).update({ settlement_mode: mode });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await shop.close();
      await h.close();
    },
  };
  return harness;
}

/** Every request of the page went to the server itself (or was a data: URI): no CDN, no third party. */
export function assertOnlyOwnOrigin(requests: string[], origin: string): void {
  const foreign = requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
  assert.deepEqual(foreign, [], 'the page requested another origin');
}

/** Presses Tab until the focused element is the one named `name`, then Enter: the flow works without a mouse. */
export async function pressByKeyboard(page: Page, name: RegExp): Promise<void> {
  for (let tabs = 0; tabs < 40; tabs++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return element ? `${element.textContent ?? ''} ${element.getAttribute('aria-label') ?? ''}` : '';
    });
    if (name.test(focused)) {
      await page.keyboard.press('Enter');
      return;
    }
  }
  assert.fail(`no element named ${String(name)} could be reached with Tab`);
}

/** Waits until the page shows `text` anywhere (the bounded wait of helpers/wait.ts). */
export async function shows(page: Page, text: string | RegExp): Promise<void> {
  await eventually(`the page to show ${String(text)}`, async () => (await page.getByText(text).count()) > 0);
}
