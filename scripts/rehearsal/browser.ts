/**
 * The hosted checkout paid in Chromium through the proxy, as a buyer pays it: the merchant creates a payment, the
 * buyer opens its `gatewayUrl` (https through nginx), connects the wallet the page discovers (EIP-6963, the test
 * wallet of test/checkout/wallets.ts, whose keys and chain calls live in Node) and pays the gasless TUSD option with
 * the page's own buttons. The page's requests are the page's: nothing here talks to the gateway for it.
 *
 * Chromium trusts the run's throwaway CA the way a Linux desktop trusts an internal CA: the CA is added to the NSS
 * database of the browser's own HOME (certutil, Debian's libnss3-tools). Nothing turns certificate checks off, so a
 * proxy serving a certificate the CA did not sign fails the payment.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { installEvmWallet } from '../../test/checkout/wallets.js';
import type { Traffic } from './traffic.js';

export interface BrowserBuyerOptions {
  /** The run's directory: the browser's HOME (with its NSS database) is made under it. */
  dir: string;
  /** The throwaway CA's certificate (PEM). */
  ca: string;
  evmRpcUrl: string;
  evmChainId: number;
}

/** How long one payment in the page may take, from opening the page to the receipt, on a loaded machine. */
const PAY_TIMEOUT_MS = 120_000;

function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

export class BrowserBuyer {
  private constructor(
    private readonly browser: Browser,
    private readonly o: BrowserBuyerOptions,
  ) {}

  static async launch(o: BrowserBuyerOptions): Promise<BrowserBuyer> {
    const home = join(o.dir, 'browser-home');
    const nssdb = `sql:${join(home, '.pki', 'nssdb')}`;
    mkdirSync(join(home, '.pki', 'nssdb'), { recursive: true, mode: 0o700 });
    execFileSync('certutil', ['-d', nssdb, '-N', '--empty-password'], { stdio: 'pipe' });
    // `C,,`: a trusted issuer of server certificates, nothing else (no e-mail or code signing).
    execFileSync('certutil', ['-d', nssdb, '-A', '-t', 'C,,', '-n', 'Paygate rehearsal CA', '-i', o.ca], {
      stdio: 'pipe',
    });
    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      // --no-sandbox: the rehearsal runs as root here, where Chromium's sandbox refuses to start.
      args: ['--no-sandbox'],
      env: { ...process.env, HOME: home },
    });
    return new BrowserBuyer(browser, o);
  }

  /**
   * One payment made by the page, counted in the traffic's current window as `pay checkout`. A page that saw a 503
   * while the database is away (step 3) is refused, not failed: the operation throws as the SDKs do.
   */
  async payOnce(traffic: Traffic, tag: string): Promise<void> {
    let paymentId = '';
    let status = 'not paid';
    await traffic.op('pay checkout', async (f) => {
      const created = await traffic.merchant(f).createPayment({
        amount: { unit: 'iso4217/USD', value: '125' },
        referenceId: `page-${tag}`,
      });
      paymentId = created.paymentId;
      const account = privateKeyToAccount(generatePrivateKey());
      await traffic.fund({ chain: 'evm', address: account.address, tusd: '10000000' });
      const context = await this.browser.newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(PAY_TIMEOUT_MS);
      let refused = 0;
      try {
        await installEvmWallet(context, {
          account,
          rpcUrls: { [this.o.evmChainId]: this.o.evmRpcUrl },
          chainId: this.o.evmChainId,
          name: 'Test EVM Wallet',
        });
        const page = await context.newPage();
        page.on('response', (res) => {
          if (res.status() === 503) refused++;
        });
        await page.goto(created.gatewayUrl);
        await page.locator('[data-view="open"]').waitFor();
        await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
        const option = page.getByTestId('option').filter({ hasText: 'TUSD' });
        await option.getByRole('button', { name: /^Pay .*TUSD/ }).click();
        const final = page.locator('[data-view="succeeded"], [data-view="failed"], [data-view="load-failed"]');
        await final.waitFor();
        const view = await final.getAttribute('data-view');
        if (view !== 'succeeded') throw new Error(`the page ended on "${view}"`);
        status = 'succeeded';
      } catch (err) {
        if (refused > 0) throw Object.assign(err as Error, { status: 503, code: 'page' });
        throw err;
      } finally {
        await context.close().catch(() => undefined);
      }
    });
    traffic.paid.push({ paymentId, kind: 'checkout', status });
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}
