/** The rehearsal itself; run.ts launches it (see there for the options). */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Step, StepRow } from './context.js';
import { deploy } from './deployment.js';
import { compiledRelease, exportSources, installedRelease } from './release.js';
import { rollingApiRestart } from './steps/rollingApi.js';
import { rollingWorkerRestart } from './steps/rollingWorkers.js';
import { postgresRestart } from './steps/postgresRestart.js';
import { backupRestore } from './steps/backupRestore.js';
import { upgrade } from './steps/upgrade.js';
import { Traffic } from './traffic.js';
import { BrowserBuyer } from './browser.js';

const PREVIOUS = 'v0.1.0';
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const short = args.includes('--short');
// `--only 3,5`: only those steps, to work on one (the short test runs every step).
const only = option('--only')?.split(',');
const runs = (n: number) => !only || only.includes(String(n));
const dir = resolve(option('--dir')!);
const tlsDir = process.env.REHEARSAL_TLS_DIR!;
const started = Date.now();
const log = (line: string) => console.log(`[rehearsal ${((Date.now() - started) / 1000).toFixed(0)} s] ${line}`);

const tagged =
  !args.includes('--no-upgrade') &&
  spawnSync('git', ['-C', repo, 'rev-parse', '--verify', '--quiet', `${PREVIOUS}^{commit}`]).status === 0;

function table(rows: StepRow[]): string {
  const head =
    '| step | requests | failures | retries | longest pause | lost | note |\n|---|---:|---:|---:|---:|---:|---|';
  const line = (r: StepRow) =>
    `| ${r.step} | ${r.requests} | ${r.failures} | ${r.retries} | ${r.longestPauseMs} ms | ${r.lost} | ${(r.note ?? '').replaceAll('|', '/')} |`;
  return [head, ...rows.map(line)].join('\n');
}

log(`${short ? 'short' : 'full'} form in ${dir}`);
const release = short
  ? await compiledRelease(repo, repo, join(dir, 'release'))
  : installedRelease(repo, 'HEAD', join(dir, 'release'), log);
let previous: string | null = null;
if (tagged) {
  if (short) {
    exportSources(repo, PREVIOUS, join(dir, `src-${PREVIOUS}`));
    previous = await compiledRelease(join(dir, `src-${PREVIOUS}`), repo, join(dir, `release-${PREVIOUS}`));
  } else previous = installedRelease(repo, PREVIOUS, join(dir, `release-${PREVIOUS}`), log);
} else log(`no tag ${PREVIOUS} here (a clone without tags, or --no-upgrade): the upgrade step is skipped`);

const tls = { ca: join(tlsDir, 'ca.pem'), cert: join(tlsDir, 'fullchain.pem'), key: join(tlsDir, 'privkey.pem') };
const d = await deploy({ repo, dir, release: previous ?? release, tls, apis: 2, workers: 2, log });
const evmRpcUrl = d.chains.evm.entry.rpcUrl;
const pagePayer = await BrowserBuyer.launch({ dir, ca: tls.ca, evmRpcUrl, evmChainId: 31337 });
const outage = { on: false };
const solanaTusd = d.chains.solana.entry.assets.find((a) => a.caip19.includes('/token:'))!.caip19;
const traffic = new Traffic({
  baseUrl: d.baseUrl,
  merchantId: d.merchant.id,
  merchantKey: d.merchant.apiKey,
  appId: d.appId,
  faucetUrl: d.chains.faucetUrl,
  evmRpcUrl,
  evmTusd: d.chains.evm.entry.assets.find((a) => a.caip19.includes('/erc20:'))!.caip19,
  solanaCaip2: d.chains.solana.entry.caip2,
  solanaTusd,
  merchantLoops: 2,
  tolerate503: () => outage.on,
  pagePayer,
});
const rows: StepRow[] = [];
let code = 0;
try {
  log(`deployment up at ${d.baseUrl} (release ${d.paths.release.split('/').pop()}); traffic starts`);
  traffic.start();
  await traffic.settle(6);
  // Each row says how many payments the hosted checkout page took in Chromium while the step ran.
  let pagesFrom = traffic.paid.length;
  const show = (row: StepRow) => {
    const pages = traffic.paid.slice(pagesFrom).filter((p) => p.kind === 'checkout' && p.status === 'succeeded');
    pagesFrom = traffic.paid.length;
    row.note = [`${pages.length} paid in the hosted checkout in Chromium`, row.note].filter(Boolean).join('; ');
    rows.push(row);
    log(
      `${row.step}: requests ${row.requests}, failures ${row.failures}, retries ${row.retries}, longest ${row.longestPauseMs} ms, lost ${row.lost}${row.note ? ` (${row.note})` : ''}`,
    );
  };
  // The upgrade comes first: the deployment the other steps restart is then an upgraded one.
  if (previous && runs(4)) show(await upgrade(d, traffic, { from: PREVIOUS, release }));
  if (runs(1)) show(await rollingApiRestart(d, traffic));
  if (runs(2)) show(await rollingWorkerRestart(d, traffic, short ? 12 : 60));
  if (runs(3)) show(await postgresRestart(d, traffic, outage));
  if (runs(5)) show(await backupRestore(d, traffic));
  await traffic.stop();
  // The operator's steps of the "ops" work (backup/restore, derivation, rotation), when present on this branch.
  for (const name of ['backup', 'derivation', 'rotation']) {
    const file = join(here, 'steps', `${name}.ts`);
    if (!existsSync(file)) continue;
    // The default export, or else the module's first exported function: `(ctx) => Promise<StepRow>`.
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const step = [mod.default, ...Object.values(mod)].find((v): v is Step => typeof v === 'function');
    if (typeof step === 'function') show(await step(d));
  }
  if (!previous)
    rows.push({
      step: `4. upgrade from ${PREVIOUS}`,
      requests: 0,
      failures: 0,
      retries: 0,
      longestPauseMs: 0,
      lost: 0,
      note: 'skipped: no tag here',
    });
  if (rows.some((r) => r.failures > 0 || r.lost > 0)) code = 1;
  const pagesPaid = traffic.paid.filter((p) => p.kind === 'checkout' && p.status === 'succeeded').length;
  if (pagesPaid === 0) {
    log('no payment was paid in the hosted checkout in Chromium: the page flow through the proxy is broken');
    code = 1;
  }
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  await traffic.stop().catch(() => undefined);
  await pagePayer.close().catch(() => undefined);
  await d.close();
}
const text = table(rows);
console.log(
  `\n${text}\n\n${code === 0 ? 'PASS' : 'FAIL'} in ${((Date.now() - started) / 1000).toFixed(0)} s; logs in ${dir}/logs`,
);
writeFileSync(join(dir, 'table.md'), `${text}\n`);
const out = option('--table');
if (out) writeFileSync(out, `${text}\n`);
process.exit(code);
