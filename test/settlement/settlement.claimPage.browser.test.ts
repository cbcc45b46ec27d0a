/**
 * A refund's claim page (web/refund.html) in a real headless Chromium, as a buyer uses the link: the page reads the
 * token from the fragment, shows the refund, refuses an address of another chain, accepts one of the refund's chain,
 * and a used link then says it cannot be used. axe and screenshots at 1280 and 375 px on every view.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createApp, createRuntime, openDatabase, type Runtime } from '@paygate/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Chains } from '../../server/src/chains/index.js';
import { createPayment, transitionPayment } from '../../server/src/payments/lifecycle.js';
import { insertLedgerEntries } from '../../server/src/settlement/ledger.js';
import { refundPayment } from '../../server/src/settlement/refunds.js';
import { launchChromium } from '../collect/browser.js';
import { captureWidths } from '../helpers/browser.js';
import { sharedChains } from '../helpers/chain.js';
import { testConfig } from '../helpers/config.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { listen, type Listening } from '../helpers/http.js';
import { captureLogs } from '../helpers/logs.js';
import { testClock } from '../helpers/runtime.js';

const SHOTS_DIR = join(process.cwd(), 'test-results', 'screenshots');

describe('settlement.claimPage [browser]', function () {
  let runtime: Runtime;
  let server: Listening;
  let browser: Browser;
  let context: BrowserContext;
  let chains: Chains;
  /** CSP refusals and uncaught errors (a refused request's own console line is expected where a test causes one). */
  let problems: string[];

  before(async () => {
    chains = await sharedChains();
    const db = openDatabase('sqlite::memory:');
    runtime = await createRuntime({
      config: testConfig(),
      db,
      logger: captureLogs('info').logger,
      now: testClock().now,
      chains,
    });
    const close = runtime.close;
    runtime.close = async () => {
      await close();
      await db.close();
    };
    [server, browser] = await Promise.all([listen(createApp({ runtime })), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await runtime?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext();
    problems = [];
    context.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text());
    });
    context.on('weberror', (e) => problems.push(e.error().message));
  });
  afterEach(() => context.close());

  /** A refund waiting for the buyer's address (a collected payment paid by a plain transfer); its link's token. */
  async function awaitingRefund(amount: bigint): Promise<string> {
    const account = await createMerchantAccount(runtime);
    const chain = chains.local!.evm.config.caip2;
    const payment = await createPayment(runtime, {
      merchantId: account.merchantId,
      live: true,
      referenceId: 'order-1',
      amount: { unit: 'iso4217/USD', value: '700' },
      expiresAt: runtime.now() + 30 * 60_000,
      successUrl: null,
      errorUrl: null,
    });
    await transitionPayment(runtime, payment.id, { to: 'processing', stages: {} });
    await transitionPayment(runtime, payment.id, { to: 'succeeded', stages: {} });
    await insertLedgerEntries(runtime.db.knex, [
      {
        entryKey: `payable:${payment.id}`,
        kind: 'payable',
        merchantId: account.merchantId,
        live: true,
        mode: 'collected',
        chain,
        asset: `${chain}/erc20:${chains.local!.evm.testUsd}`,
        amount,
        address: null,
        paymentId: payment.id,
        createdAt: runtime.now(),
      },
    ]);
    const { body } = await refundPayment(runtime, { merchantId: account.merchantId, live: true }, payment.id, {});
    return new URL(body.refund!.claim_url!).hash.slice(1);
  }

  async function open(token: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${server.url}/refund#${token}`);
    return page;
  }

  it('claim: shows the refund, refuses an address of another chain, then sends to the address entered', async () => {
    const token = await awaitingRefund(7_250_000n);
    const page = await open(token);
    await page.locator('#form').waitFor();
    assert.equal(await page.locator('#amount').textContent(), '7.25 TUSD');
    await captureWidths(page, SHOTS_DIR, 'refund-claim');

    await page.fill('#address', chains.local!.solana.feePayer.address);
    await page.click('#submit');
    await page.locator('#form-error').waitFor();
    assert.match((await page.locator('#form-error').textContent()) ?? '', /enter an address of that chain/);
    await captureWidths(page, SHOTS_DIR, 'refund-claim-wrong-chain');

    const buyer = privateKeyToAccount(generatePrivateKey()).address;
    await page.fill('#address', buyer.toLowerCase());
    await page.click('#submit');
    await page.locator('#done').waitFor();
    assert.equal(await page.locator('#destination').textContent(), getAddress(buyer));
    await captureWidths(page, SHOTS_DIR, 'refund-claim-done');
    const row = await runtime.db
      .knex('onchain_refunds')
      .where({ destination: getAddress(buyer) })
      .first();
    assert.equal(row.state, 'planned');
    assert.deepEqual(problems, []);
  });

  it('claim: a used link shows that it cannot be used', async () => {
    const token = await awaitingRefund(1_000_000n);
    const first = await open(token);
    await first.locator('#form').waitFor();
    await first.fill('#address', privateKeyToAccount(generatePrivateKey()).address);
    await first.click('#submit');
    await first.locator('#done').waitFor();

    const again = await open(token);
    await again.locator('#failed').waitFor();
    assert.match((await again.locator('#failed-text').textContent()) ?? '', /used already/);
    assert.equal(await again.locator('#form').isHidden(), true);
    await captureWidths(again, SHOTS_DIR, 'refund-claim-used');
    assert.deepEqual(problems, []);
  });

  it('page: served with a CSP that allows only its own files, and no cache', async () => {
    const res = await fetch(`${server.url}/refund`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('Cache-Control'), 'no-store');
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.ok(!(await res.text()).includes('<script>'), 'no inline script');
  });
});
