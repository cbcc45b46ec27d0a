/**
 * Builds one self-contained HTML reference per API into openapi/dist/docs/ (git-ignored build output), inside the
 * @paygate/openapi package so that a server installed from packages finds them by package resolution.
 * "Self-contained" means the page opens with no network: the Redoc bundle is inlined, and a check below fails
 * the build if the page would load a script or stylesheet from anywhere.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'openapi/dist/docs');
const apis = [
  { api: 'gateway', title: 'Paygate Gateway API' },
  { api: 'merchant', title: 'Paygate Merchant API and webhooks' },
  { api: 'dev', title: 'Paygate Dev API' },
  { api: 'dashboard', title: 'Paygate Dashboard API (webhook endpoints)' },
  { api: 'ops', title: 'Paygate Operations API (probes and metrics)' },
];

/** Any `src`/`href` that makes the browser fetch from the network: scripts, stylesheets, fonts, preloads. */
export function networkLoads(html: string): string[] {
  const found: string[] = [];
  const tag = /<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi;
  for (const m of html.matchAll(tag)) {
    if (
      m[1]!.toLowerCase() === 'link' &&
      !/rel\s*=\s*["']?(stylesheet|preload|modulepreload|icon|prefetch)/i.test(m[0])
    )
      continue;
    found.push(`<${m[1]}> ${m[3]}`);
  }
  for (const m of html.matchAll(/@import\s+(?:url\()?["']?((?:https?:)?\/\/[^"')\s]+)/gi))
    found.push(`@import ${m[1]}`);
  return found;
}

function main(): void {
  mkdirSync(outDir, { recursive: true });
  for (const { api, title } of apis) {
    const out = join(outDir, `${api}.html`);
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/@redocly/cli/bin/cli.js'),
        'build-docs',
        join(root, `openapi/bundled/${api}.yaml`),
        '--inlineBundle',
        '--title',
        title,
        '--output',
        out,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const loads = networkLoads(readFileSync(out, 'utf8'));
    if (loads.length > 0) {
      console.error(`${out} would load from the network:\n  ${loads.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`docs: ${out}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
