/**
 * `npm run bench -- NAME` runs scripts/bench/NAME.ts. Each benchmark measures its baseline in the same run and
 * reports ratios, because absolute numbers on a shared 2-core machine say little.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .map((f) => f.slice(0, -3));
const name = process.argv[2];

if (!name || !existsSync(join(here, `${name}.ts`))) {
  console.error(`Usage: npm run bench -- <name>\nAvailable: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--conditions=@paygate/source', join(here, `${name}.ts`), ...process.argv.slice(3)],
  {
    stdio: 'inherit',
  },
);
process.exit(result.status ?? 1);
