/**
 * The dashboard web app in a real Chromium, against a real server in-process (the merchant harness: real database,
 * contract-checked answers, the fixtures' clock, which a test moves to expire a session). Screens are checked with axe
 * and photographed at 1280 and 375 px into test-results/screenshots/dashboard-<screen>-<width>.png.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../collect/browser.js';
import { captureWidths } from '../helpers/browser.js';
import { eventually } from '../helpers/wait.js';
import { startHarness, type Harness } from '../merchant/harness.js';

export const SHOTS_DIR = join(process.cwd(), 'test-results', 'screenshots');

export interface DashboardBrowser {
  harness: Harness;
  browser: Browser;
  url(path: string): string;
  /** A fresh browser context (no cookie, no storage) on `path`. */
  open(path: string, options?: { width?: number }): Promise<Page>;
  /** axe at both widths and the screenshots `dashboard-<screen>-<width>.png`. */
  capture(page: Page, screen: string): Promise<void>;
  close(): Promise<void>;
}

export async function startDashboardBrowser(
  options: { config?: Record<string, string> } = {},
): Promise<DashboardBrowser> {
  const harness = await startHarness({ config: options.config });
  // Invitation links and the CSRF origin check name this server, which has only now got its port.
  (harness.runtime.config as { publicBaseUrl: string }).publicBaseUrl = harness.server.url;
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    harness,
    browser,
    url: (path) => `${harness.server.url}${path}`,
    async open(path, o = {}) {
      const context = await browser.newContext({ viewport: { width: o.width ?? 1280, height: 900 } });
      contexts.push(context);
      const page = await context.newPage();
      await page.goto(`${harness.server.url}${path}`);
      return page;
    },
    capture: (page, screen) => captureWidths(page, SHOTS_DIR, `dashboard-${screen}`),
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
      await harness.close();
    },
  };
}

/** Waits until the page's path (without the query) is `path`. */
export async function landsOn(page: Page, path: string): Promise<void> {
  await eventually(`the page to reach ${path}`, () => new URL(page.url()).pathname === path);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The RFC 6238 code (SHA-1, 6 digits, 30 s) of a base32 secret at `ms`: what an authenticator app would show. */
export function totpCode(secret: string, ms: number): string {
  let bits = '';
  for (const char of secret.replace(/[\s=]/g, '').toUpperCase()) {
    const value = BASE32.indexOf(char);
    if (value < 0) throw new Error('not base32');
    bits += value.toString(2).padStart(5, '0');
  }
  const key = Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 1000 / 30)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

/**
 * Signs in through the login page (and its 2FA step when `totp` is given), and waits until the app has read the
 * session at the screen it lands on (`next`, the overview by default).
 */
export async function signInThroughPage(
  page: Page,
  who: { email: string; password: string },
  options: { totp?: string; next?: string } = {},
): Promise<void> {
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  const read = page.waitForResponse((r) => r.url().endsWith('/v1/dashboard/session') && r.status() === 200);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (options.totp) {
    await page.getByLabel('Authentication code').fill(options.totp);
    await page.getByRole('button', { name: 'Verify' }).click();
  }
  await landsOn(page, options.next ?? '/dashboard');
  await read;
}
