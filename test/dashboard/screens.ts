/**
 * The dashboard's screens (Overview, Payments, PaymentDetail, Webhooks) in a real Chromium against a real server.
 *
 * Until the shell (web/dashboard.html, its router and sessions) is merged, the screens run on their preview page
 * (web/src/dashboard/screens/parts/preview.html), which this file builds with Vite into a temporary folder and serves
 * at the server's own origin under /dashboard/ through Playwright routing, with the checkout's 'self'-only CSP, so the
 * screens call the real API same-origin. Each page belongs to a real user with a role in the merchant, signed in
 * through the API (POST /v1/dashboard/auth/login): the browser holds the session cookie, and the page sends its CSRF
 * token, `Merchant-Id` and `Paygate-Mode` like the shell does. Once the shell's login page is merged, `open` signs in
 * through it instead.
 *
 * Every screen is checked with axe and photographed at 1280 and 375 px into test-results/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../collect/browser.js';
import { startDashboard, type Dashboard, type Merchant } from './harness.js';
import { createPerson, signInAs } from './people.js';

export const SHOTS_DIR = join(process.cwd(), 'test-results', 'screenshots');
export const WIDTHS = [1280, 375] as const;
/** The addresses the test server says its deliveries come from (getWebhookSources). */
export const SOURCE_ADDRESSES = ['203.0.113.10', '2001:db8::10'];

const WEB = join(process.cwd(), 'web');
const PREVIEW = 'src/dashboard/screens/parts/preview.html';

/** The dashboard page's policy: the checkout's (server/src/http/security.ts), nothing inline, nothing third-party. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

async function buildPreview(outDir: string): Promise<void> {
  const { build } = await import('vite');
  // Vite's build sets NODE_ENV=production in the process that runs it when it is unset, and this is the mocha worker:
  // every later test in it would then load the production builds of its dependencies (@solana/kit's errors carry no
  // message there). The variable is put back as it was.
  const nodeEnv = process.env.NODE_ENV;
  try {
    await build({
      root: WEB,
      configFile: false,
      logLevel: 'error',
      base: '/dashboard/',
      resolve: { conditions: ['@paygate/source', 'browser', 'module', 'import', 'default'] },
      oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
      build: {
        outDir,
        emptyOutDir: true,
        target: 'es2022',
        assetsInlineLimit: 0,
        modulePreload: { polyfill: false },
        rollupOptions: { input: { preview: join(WEB, PREVIEW) } },
      },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

export interface OpenedScreen {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught page errors (a CSP refusal shows up here), without failed-request noise. */
  problems: string[];
}

export interface OpenOptions {
  role?: 'owner' | 'developer' | 'viewer';
  /** The merchant the page asks for (Merchant-Id), when not the one the user is a member of: a refusal. */
  pageMerchantId?: string;
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

export async function startScreens(): Promise<ScreensHarness> {
  const outDir = mkdtempSync(join(tmpdir(), 'paygate-screens-'));
  const [d, browser] = await Promise.all([
    startDashboard({
      config: { PAYGATE_WEBHOOK_ALLOW_LOOPBACK: 'true', PAYGATE_WEBHOOK_SOURCE_ADDRESSES: SOURCE_ADDRESSES.join(',') },
    }),
    launchChromium(),
    buildPreview(outDir),
  ]);
  const html = readFileSync(join(outDir, PREVIEW), 'utf8');
  const origin = d.harness.server.url;
  const contexts: BrowserContext[] = [];
  mkdirSync(SHOTS_DIR, { recursive: true });

  const harness: ScreensHarness = {
    d,
    browser,
    async open(m, path, o = {}) {
      const role = o.role ?? 'developer';
      const person = await createPerson(d.harness.runtime, { merchantId: m.account.merchantId, role });
      const signedIn = await signInAs(d.harness, person);
      const [name, ...value] = signedIn.cookie.split('=');
      const context = await browser.newContext({
        viewport: { width: o.width ?? 1280, height: 900 },
        acceptDownloads: true,
      });
      contexts.push(context);
      await context.addCookies([
        { name: name!, value: value.join('='), url: origin, httpOnly: true, sameSite: 'Strict' },
      ]);
      const config = JSON.stringify({
        merchantId: o.pageMerchantId ?? m.account.merchantId,
        mode: 'test',
        role,
        csrfToken: signedIn.csrfToken,
      });
      await context.route(
        (url) => url.origin === origin && url.pathname.startsWith('/dashboard'),
        async (route) => {
          const { pathname } = new URL(route.request().url());
          if (pathname.startsWith('/dashboard/assets/')) {
            const file = join(outDir, 'assets', pathname.slice('/dashboard/assets/'.length).replace(/\.\./g, ''));
            await route.fulfill({
              status: 200,
              headers: { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' },
              body: readFileSync(file),
            });
            return;
          }
          await route.fulfill({
            status: 200,
            headers: {
              'Content-Type': 'text/html; charset=utf-8',
              'Content-Security-Policy': CSP,
              'X-Frame-Options': 'DENY',
            },
            body: html.replace(
              '<!--paygate-config-->',
              `<script type="application/json" id="paygate-config">${config.replace(/</g, '\\u003c')}</script>`,
            ),
          });
        },
      );
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
      await page.goto(`${origin}${path}`);
      return { page, context, problems };
    },
    async accessible(page, what) {
      const result = await new AxeBuilder({ page }).analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      assert.deepEqual(
        bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        [],
        `axe found serious or critical violations in ${what}`,
      );
    },
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
      rmSync(outDir, { recursive: true, force: true });
    },
  };
  return harness;
}
