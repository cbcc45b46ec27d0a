/**
 * The dashboard's screens (Overview, Payments, the payment page, Webhooks) in a real Chromium against a real server,
 * in the shipped app: the server serves web/dashboard.html and its built assets (`npm run build -w @paygate/web`),
 * and each page belongs to a real user with a role in the merchant, signed in through the login page and sent on
 * through the app's router. The styles that ship are the styles tested; there is no test-only page.
 *
 * Every screen is checked with axe and photographed at 1280 and 375 px into test-results/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../collect/browser.js';
import { assertAccessible } from '../helpers/browser.js';
import { landsOn, signInThroughPage } from './browser.js';
import { startDashboard, type Dashboard, type Merchant } from './harness.js';
import { createPerson, type Person } from './people.js';

export const SHOTS_DIR = join(process.cwd(), 'test-results', 'screenshots');
export const WIDTHS = [1280, 375] as const;
/** The addresses the test server says its deliveries come from (getWebhookSources). */
export const SOURCE_ADDRESSES = ['203.0.113.10', '2001:db8::10'];

export interface OpenedScreen {
  page: Page;
  /** The user signed in on the page. */
  person: Person;
  context: BrowserContext;
  /** Console errors and uncaught page errors (a CSP refusal shows up here), without failed-request noise. */
  problems: string[];
}

export interface OpenOptions {
  role?: 'owner' | 'developer' | 'viewer';
  width?: number;
}

export interface ScreensHarness {
  d: Dashboard;
  browser: Browser;
  open(m: Merchant, path: string, options?: OpenOptions): Promise<OpenedScreen>;
  /** axe: no serious or critical violation in what the page shows now. */
  accessible(page: Page, what: string): Promise<void>;
  /** At every width: axe, no horizontal overflow, then a screenshot into test-results/screenshots/dashboard-<name>-<width>.png. */
  review(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startScreens(
  options: {
    config?: Record<string, string>;
    chains?: NonNullable<Parameters<typeof startDashboard>[0]>['chains'];
  } = {},
): Promise<ScreensHarness> {
  const [d, browser] = await Promise.all([
    startDashboard({
      config: {
        PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true',
        PAYGATE_WEBHOOK_SOURCE_ADDRESSES: SOURCE_ADDRESSES.join(','),
        ...options.config,
      },
      chains: options.chains,
    }),
    launchChromium(),
  ]);
  const origin = d.harness.server.url;
  // The CSRF origin check names this server, which has only now got its port.
  (d.harness.runtime.config as { publicBaseUrl: string }).publicBaseUrl = origin;
  const contexts: BrowserContext[] = [];
  mkdirSync(SHOTS_DIR, { recursive: true });

  const harness: ScreensHarness = {
    d,
    browser,
    async open(m, path, o = {}) {
      const role = o.role ?? 'developer';
      const person = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role });
      const context = await browser.newContext({
        viewport: { width: o.width ?? 1280, height: 900 },
        acceptDownloads: true,
      });
      contexts.push(context);
      const page = await context.newPage();
      // The page's clock is the server's (the harness clock stands still unless a test moves it): date inputs
      // default to the server's day, and "since" dates are in the range the server accepts.
      await page.clock.setFixedTime(d.harness.clock.now());
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          problems.push(message.text());
        }
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${origin}/dashboard/login`);
      await signInThroughPage(page, person);
      if (path !== '/dashboard') {
        await page.goto(`${origin}${path}`);
        await landsOn(page, new URL(`${origin}${path}`).pathname);
      }
      return { page, person, context, problems };
    },
    // The shared check: axe's serious and critical violations, and the contrasts axe leaves unsure.
    accessible: (page, what) => assertAccessible(page, what),
    async review(page, name) {
      const before = page.viewportSize() ?? { width: 1280, height: 900 };
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await harness.accessible(page, `${name} at ${width} px`);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(scrollWidth <= width, `${name} at ${width} px is ${scrollWidth} px wide: something overflows`);
        await page.screenshot({ path: join(SHOTS_DIR, `dashboard-${name}-${width}.png`), fullPage: true });
      }
      await page.setViewportSize(before);
    },
    async close() {
      await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
      await browser.close();
      await d.close();
    },
  };
  return harness;
}
