/**
 * `npm run bench -- checkout`: the hosted checkout page (`GET /pay/{paymentId}`) in headless Chromium. Weight: every
 * response of the page's first load, raw and gzipped (zlib level 9, as a compressing server would send it) beside
 * what the server actually sent, against the budget "the page's JavaScript ≤ 150 KB gzipped in total" (exits 1 when
 * over). Load: cold loads (a fresh browser context each) until the page is interactive, beside a baseline page served
 * by the same server process in the same run, alternating with it.
 *
 * The web page is built first (`npm run build -w @paygate/web`), so the run measures the current sources. The server
 * runs in a child process (this file with `--serve`): a runtime over a SQLite file with the local chains
 * (PAYGATE_CHAINS=local, as `paygate start` in development), its background jobs, and `createApp` mounted behind
 * the baseline's two routes. The payment is created through the merchant API.
 *
 * Env: BENCH_LOADS (timed cold loads of each page, 20), BENCH_WARMUPS (3 of each first), BENCH_WRITE=0 (print only,
 * leave BENCHMARKS.md alone).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import express from 'express';
import { pino } from 'pino';
import type { Browser, Page, Response } from 'playwright-core';
import { createApp, createRuntime, loadConfig } from '@paygate/server';
import { DEMO_SETTLEMENT_ADDRESSES } from '../../server/src/accounts/bootstrap.js';
import { launchChromium } from '../../test/collect/browser.js';
import { createMerchantAccount } from '../../test/helpers/fixtures.js';
import { machineLine, writeSection } from './_report.js';

const LOADS = Number(process.env.BENCH_LOADS ?? 20);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 3);
const WRITE = process.env.BENCH_WRITE !== '0';
/** The budget, read strictly: 150 KB = 150 000 bytes (not KiB). */
const JS_BUDGET = 150_000;
const DIST_ASSETS = 'web/dist/assets';

// ---------------------------------------------------------------------------------------------------------------
// The server (child process)

/**
 * The baseline: the cheapest page of the same shape, from the same process. A document whose one module script puts
 * the same landmark the checkout's open view has into the page, so both are "interactive" by the same test below:
 * it costs the navigation, one script request and a DOM insertion, and none of the app (its JavaScript, its CSS,
 * its gateway call, its render). It is sent with the two headers every page Paygate serves carries that decide the
 * browser's process for the navigation (helmet's `Cross-Origin-Opener-Policy: same-origin` and `Origin-Agent-Cluster`):
 * without them Chromium keeps the baseline in the blank tab's process and swaps processes for the checkout only
 * (about 60 ms here, decisions.md §26.28), which is the security policy's cost, not the app's.
 */
const BASELINE_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Origin-Agent-Cluster': '?1' };
const BASELINE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Baseline</title><script type="module" src="/bench/baseline.js"></script></head>
<body><div id="app"></div></body></html>`;
const BASELINE_JS = `document.getElementById('app').innerHTML =
  '<section data-view="open"><details class="phone"><summary>Pay with a phone</summary><p>Link</p></details></section>';`;

async function serve(databaseUrl: string, dataDir: string): Promise<void> {
  // The port first, so PUBLIC_BASE_URL (the payment link the page shows) is this server.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    PAYGATE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    PAYGATE_CHAINS: 'local',
    PUBLIC_BASE_URL: url,
    LOG_LEVEL: 'silent',
    PAYGATE_RATE_LIMIT_RPS: '1000000',
    PAYGATE_RATE_LIMIT_BURST: '1000000',
    PAYGATE_DATA_DIR: dataDir,
  });
  const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }), chains: 'start' });
  const account = await createMerchantAccount(runtime, { settlementAddresses: DEMO_SETTLEMENT_ADDRESSES });
  await runtime.startBackground();
  const app = express();
  app.disable('x-powered-by');
  app.get('/bench/baseline', (_req, res) =>
    res
      .set({ 'Cache-Control': 'no-store', ...BASELINE_HEADERS })
      .type('html')
      .send(BASELINE_HTML),
  );
  app.get('/bench/baseline.js', (_req, res) => res.type('text/javascript').send(BASELINE_JS));
  app.use(createApp({ runtime }));
  handler = app;
  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await runtime.close(); // stops anvil, which the runtime started
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  process.stdout.write(JSON.stringify({ url, merchantId: account.merchantId, apiKey: account.testKey }) + '\n');
}

interface Started {
  child: ChildProcess;
  info: { url: string; merchantId: string; apiKey: string };
}

async function startServer(dir: string): Promise<Started> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@paygate/source',
      fileURLToPath(import.meta.url),
      '--serve',
      `sqlite:${join(dir, 'bench.sqlite')}`,
      join(dir, 'data'),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, info: JSON.parse(line) as Started['info'] };
}

async function stopServer(server: Started): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGINT');
  await exited;
}

// ---------------------------------------------------------------------------------------------------------------
// Weight

interface Resource {
  kind: string;
  path: string;
  encoding: string;
  /** The body as the server sent it (after any Content-Encoding), from Chromium's network stack. */
  sent: number;
  raw: number;
  gzip: number;
}

const KINDS: Record<string, string> = { document: 'HTML', script: 'JS', stylesheet: 'CSS', fetch: 'API' };

async function resourceOf(response: Response): Promise<Resource> {
  const body = await response.body();
  const sizes = await response.request().sizes();
  const url = new URL(response.url());
  return {
    kind: KINDS[response.request().resourceType()] ?? response.request().resourceType(),
    path: url.pathname,
    encoding: (await response.headerValue('content-encoding')) ?? 'none',
    sent: sizes.responseBodySize,
    raw: body.length,
    gzip: gzipSync(body, { level: 9 }).length,
  };
}

/** Every JavaScript file the build emitted for the page, loaded on open or not (a lazy chunk counts too). */
function builtScripts(): { files: number; raw: number; gzip: number } {
  const files = readdirSync(DIST_ASSETS).filter((f) => f.endsWith('.js'));
  const bodies = files.map((f) => readFileSync(join(DIST_ASSETS, f)));
  return {
    files: files.length,
    raw: bodies.reduce((n, b) => n + b.length, 0),
    gzip: bodies.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Load timing

/**
 * Installed before any script of the page: records `performance.now()` (ms since navigation start) the first time
 * the open view is shown with its "Pay with a phone" summary visible and focusable, checked on every DOM mutation.
 * Preact attaches handlers as it inserts elements, so this is the moment a person can use the page. A string, not a
 * function: tsx would wrap a function's inner functions in a `__name` helper that the page does not have.
 */
const DETECT_INTERACTIVE = `(() => {
  const ready = () => {
    const view = document.querySelector('[data-view="open"]');
    if (!view || !view.checkVisibility()) return false;
    const summary = [...view.querySelectorAll('summary')].find((s) => s.textContent.trim() === 'Pay with a phone');
    return !!summary && summary.checkVisibility() && summary.tabIndex >= 0 && !summary.closest('[inert]');
  };
  const observer = new MutationObserver(() => {
    if (window.__interactiveAt === undefined && ready()) {
      window.__interactiveAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true, attributes: true });
})();`;

interface Timing {
  /** First byte of the document, from Navigation Timing. */
  ttfb: number;
  fcp: number;
  dcl: number;
  load: number;
  interactive: number;
  /** Resource Timing: the page's script fully received; the gateway read sent and answered (NaN on the baseline). */
  scriptEnd: number;
  apiStart: number;
  apiEnd: number;
}

const METRICS: { key: keyof Timing; what: string }[] = [
  { key: 'interactive', what: 'time to interactive (open view and its summary usable)' },
  { key: 'fcp', what: 'first contentful paint' },
  { key: 'dcl', what: 'DOMContentLoaded (end of its handlers)' },
  { key: 'load', what: 'load event (end of its handlers)' },
  { key: 'ttfb', what: 'document first byte (responseStart)' },
];

/** Waits for the detector's mark; on a timeout, says what the page shows instead and what it logged. */
async function untilInteractive(page: Page): Promise<void> {
  const logged: string[] = [];
  page.on('console', (m) => logged.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logged.push(`pageerror: ${e.message}`));
  try {
    await page.waitForFunction(() => (window as unknown as { __interactiveAt?: number }).__interactiveAt, null, {
      timeout: 30_000,
    });
  } catch (error) {
    const shown = await page.evaluate(() => document.body.innerHTML.slice(0, 2000)).catch(() => '?');
    throw new Error(`${page.url()} never became interactive: ${String(error)}\n${shown}\n${logged.join('\n')}`);
  }
}

/** One cold load: a fresh context (empty cache, new connection), the page to interactive and its load event. */
async function coldLoad(browser: Browser, url: string): Promise<Timing> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript(DETECT_INTERACTIVE);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    await untilInteractive(page);
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const interactive = (window as unknown as { __interactiveAt: number }).__interactiveAt;
      // The page's scripts asked for before it was interactive: its entry and the chunks the HTML preloads
      // (decisions.md §26.28), not the QR encoder's chunk that follows the first paint. The last one received.
      const scripts = resources.filter((r) => /\.js(\?|$)/.test(r.name) && r.startTime < interactive);
      const script = scripts.length ? { responseEnd: Math.max(...scripts.map((r) => r.responseEnd)) } : undefined;
      const api = resources.find((r) => /\/v1\/gateway\/payment\/[^/?]+(\?|$)/.test(r.name));
      return {
        scriptEnd: script ? script.responseEnd : NaN,
        apiStart: api ? api.startTime : NaN,
        apiEnd: api ? api.responseEnd : NaN,
        ttfb: nav.responseStart,
        fcp: fcp ? fcp.startTime : NaN,
        dcl: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        interactive,
      };
    });
  } finally {
    await context.close();
  }
}

// A load without a paint entry gives NaN, which breaks a numeric sort: percentiles are of the values that exist.
const percentile = (values: number[], p: number) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

// ---------------------------------------------------------------------------------------------------------------

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const loadBefore = load();
  const started = performance.now();
  const build = spawnSync('npm', ['run', 'build', '-w', '@paygate/web'], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`web build failed:\n${build.stdout}\n${build.stderr}`);

  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-checkout-'));
  const server = await startServer(dir);
  let browser: Browser | null = null;
  try {
    const { url, apiKey, merchantId } = server.info;
    const created = await fetch(`${url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Api-Key': apiKey, 'Merchant-Id': merchantId },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'bench-checkout' }),
    });
    if (created.status !== 201) throw new Error(`create payment: ${created.status} ${await created.text()}`);
    const { paymentId } = (await created.json()) as { paymentId: string };
    const checkoutUrl = `${url}/pay/${paymentId}`;
    const baselineUrl = `${url}/bench/baseline`;
    browser = await launchChromium();
    const chromium = browser.version();

    // Weight: one cold load of the checkout, every response it received until interactive.
    const resources: Resource[] = [];
    {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addInitScript(DETECT_INTERACTIVE);
      const page = await context.newPage();
      const responses: Response[] = [];
      page.on('response', (r) => responses.push(r));
      await page.goto(checkoutUrl, { waitUntil: 'load' });
      await untilInteractive(page);
      // The status long poll stays open; its body is not part of the page's weight.
      for (const r of responses) resources.push(await resourceOf(r));
      await context.close();
    }
    const sum = (kind: string, field: 'sent' | 'raw' | 'gzip') =>
      resources.filter((r) => r.kind === kind).reduce((n, r) => n + r[field], 0);
    const built = builtScripts();
    const jsGzip = sum('JS', 'gzip');
    const pass = jsGzip <= JS_BUDGET && built.gzip <= JS_BUDGET;

    // Load timing: alternating cold loads, the order flipped each round, so load on the machine hits both alike.
    const samples: { checkout: Timing[]; baseline: Timing[] } = { checkout: [], baseline: [] };
    for (let i = 0; i < WARMUPS + LOADS; i++) {
      const order = i % 2 === 0 ? (['checkout', 'baseline'] as const) : (['baseline', 'checkout'] as const);
      for (const which of order) {
        const timing = await coldLoad(browser, which === 'checkout' ? checkoutUrl : baselineUrl);
        if (i >= WARMUPS) samples[which].push(timing);
      }
    }
    const seconds = (performance.now() - started) / 1000;

    const stat = (which: 'checkout' | 'baseline', key: keyof Timing, p: number) =>
      percentile(
        samples[which].map((t) => t[key]),
        p,
      );
    const timingRows = METRICS.map(({ key, what }) => {
      const [c50, c95, b50, b95] = [
        stat('checkout', key, 50),
        stat('checkout', key, 95),
        stat('baseline', key, 50),
        stat('baseline', key, 95),
      ];
      return `| ${what} | ${ms(c50)} | ${ms(c95)} | ${ms(b50)} | ${ms(b95)} | ${(c50 / b50).toFixed(1)}× | ${(c95 / b95).toFixed(1)}× |`;
    });
    // An open payment comes embedded in the page (decisions.md §26.15): no gateway read before interactive, and the
    // stages of one would be NaN. They are listed only when the page made that read.
    const readFirst = samples.checkout.some((t) => !Number.isNaN(t.apiStart) && t.apiStart < t.interactive);
    const stages: [string, (t: Timing) => number][] = readFirst
      ? [
          ['navigation start → the script fully received', (t) => t.scriptEnd],
          [
            'script received → gateway read sent (parse, compile, run to the first call)',
            (t) => t.apiStart - t.scriptEnd,
          ],
          ['gateway read, `GET /v1/gateway/payment/{id}` (request to answer)', (t) => t.apiEnd - t.apiStart],
          ['answer → interactive (state update and Preact render)', (t) => t.interactive - t.apiEnd],
        ]
      : [
          [
            'navigation start → the scripts fully received (the entry and the chunks the HTML preloads)',
            (t) => t.scriptEnd,
          ],
          [
            'scripts received → interactive (parse, compile, run and render; the open payment is in the page, no gateway read first)',
            (t) => t.interactive - t.scriptEnd,
          ],
        ];
    const stageRows = stages.map(([what, of]) => {
      const values = samples.checkout.map(of);
      return `| ${what} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 95))} |`;
    });
    const resourceRows = resources.map(
      (r) => `| ${r.kind} | \`${r.path}\` | ${r.encoding} | ${r.sent} | ${r.raw} | ${r.gzip} |`,
    );
    const totalRows = ['HTML', 'JS', 'CSS', 'API'].map(
      (k) => `| ${k}, total | | | ${sum(k, 'sent')} | ${sum(k, 'raw')} | ${sum(k, 'gzip')} |`,
    );
    const verdict = pass ? '**PASS**' : '**FAIL**';
    const lines = [
      '## checkout',
      '',
      `${machineLine()} · Chromium ${chromium} (headless, playwright-core) · load average ${loadBefore} before, ${load()} after · server in its own process (SQLite, local chains, background jobs on), Chromium and this driver beside it on the same two cores · ${seconds.toFixed(0)} s in all`,
      '',
      `Budget: the page's JavaScript ≤ ${kb(JS_BUDGET)} gzipped — ${verdict}: ${kb(jsGzip)} gzipped loaded on open (${kb(sum('JS', 'raw'))} raw), ${kb(built.gzip)} gzipped in all ${built.files} JavaScript file(s) the build emits (${kb(built.raw)} raw).`,
      '',
      '### Weight (one cold load of `/pay/{paymentId}` until interactive)',
      '',
      '| Type | Path | Content-Encoding sent | Body sent (bytes) | Raw (bytes) | gzip -9 (bytes) |',
      '|---|---|---|---|---|---|',
      ...resourceRows,
      ...totalRows,
      '',
      '"Body sent" is what reached Chromium (its encoded body size); "gzip -9" is each body compressed with zlib at level 9, what a server that compresses would send. KB = 1000 bytes. API rows are the gateway calls answered by then (the status long poll, still open, is not among them). The budget holds when both the JavaScript loaded on open and every JavaScript file in `web/dist/assets` are within it.',
      '',
      `### Load (${LOADS} cold loads of each page, after ${WARMUPS} warm-ups of each)`,
      '',
      '| From navigation start to | checkout p50 | checkout p95 | baseline p50 | baseline p95 | p50 / baseline p50 | p95 / baseline p95 |',
      '|---|---|---|---|---|---|---|',
      ...timingRows,
      '',
      "Where the checkout's time to interactive goes (Resource Timing of the same loads; each stage's percentiles taken on its own, so they do not add up exactly):",
      '',
      '| Stage | p50 | p95 |',
      '|---|---|---|',
      ...stageRows,
      '',
      'Each load opens a fresh browser context (empty cache, new connection; one browser for the run) at 1280 × 900, navigates and waits for the load event and for interactivity; the checkout and the baseline alternate, the order flipped each round. "Interactive" is the first DOM mutation after which `[data-view="open"]` is visible and holds the visible, focusable (tabIndex ≥ 0, not inert) "Pay with a phone" summary, timed by `performance.now()` in the page (a MutationObserver installed before the page\'s scripts); for the checkout that is after its entry module and the app chunk the HTML preloads ran (decisions.md §26.28) and Preact rendered the open payment embedded in the page (§26.15; before that, after `GET /v1/gateway/payment/{id}` answered too). DOMContentLoaded and load are `domContentLoadedEventEnd` and `loadEventEnd` of Navigation Timing, FCP the paint timing entry.',
      '',
      "Baseline: `/bench/baseline` on the same server process (a route the bench mounts before the app): a minimal document whose one module script inserts the same view and summary, so both pages are measured by the same test. It costs a navigation, one script request and a DOM insertion, and is sent with the checkout's process-deciding headers (`Cross-Origin-Opener-Policy: same-origin`, `Origin-Agent-Cluster: ?1`; before 2026-11-29 it had none, so the checkout alone paid Chromium's process swap); the ratio is what the app adds to that (its JavaScript and CSS, its render).",
    ];
    const markdown = lines.join('\n');
    console.log(markdown);
    if (WRITE) writeSection('checkout', markdown);
    if (!pass) process.exitCode = 1;
  } finally {
    await browser?.close();
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--serve') await serve(process.argv[3]!, process.argv[4]!);
else await main();
