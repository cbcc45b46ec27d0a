/**
 * A real headless Chromium for the data-collection form: Debian's `chromium` package (browser downloads do not work
 * here; `npm test` installs it through scripts/system-deps.sh) driven by playwright-core. And a tiny wallet site on another origin, whose page
 * opens or frames the form and records every message it receives.
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';

function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
  if (!found) {
    throw new Error('No Chromium found: run scripts/system-deps.sh (apt-get install chromium) or set CHROMIUM_PATH.');
  }
  return found;
}

/** One browser per test file; `--no-sandbox` because the suite runs as root. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

export interface WalletSite {
  /** A page that records `message` events into `window.received` (`{origin, data}`). */
  url: string;
  close(): Promise<void>;
}

const WALLET_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Wallet</title></head><body>
<script>
window.received = [];
window.addEventListener('message', function (event) { window.received.push({ origin: event.origin, data: event.data }); });
</script></body></html>`;

export async function startWalletSite(): Promise<WalletSite> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(WALLET_PAGE);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/wallet`,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface Received {
  origin: string;
  data: unknown;
}

/** Waits until the wallet page has received `count` messages, and answers them. */
export async function receivedMessages(page: Page, count = 1): Promise<Received[]> {
  await page.waitForFunction((n) => (window as unknown as { received: unknown[] }).received.length >= n, count, {
    timeout: 10_000,
  });
  return page.evaluate(() => (window as unknown as { received: Received[] }).received);
}
