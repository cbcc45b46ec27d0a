/**
 * The release the processes run. Full form (`npm run rehearsal`): deploy/install.sh in a clone of the commit (or tag)
 * being rehearsed, exactly as an operator installs (npm ci, build, prune; about ten minutes here). Short form
 * (`--short`, and the test in npm test): the workspace's own node_modules and web build, with the server compiled to
 * server/dist by esbuild in a second instead of tsc, laid out as install.sh lays it out, so that
 * `node <release>/server/bin/paygate.js` runs compiled JavaScript with no TypeScript loader, as in production.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Server sources of `ref` (a tag or commit) from the repository at `repo`, into `dir` (server/, openapi/). */
export function exportSources(repo: string, ref: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['-C', repo, 'archive', '--format=tar', ref, 'server', 'openapi'], {
    maxBuffer: 1 << 30,
  });
  if (archive.status !== 0) throw new Error(`git archive ${ref}: ${archive.stderr.toString()}`);
  execFileSync('tar', ['-x', '-C', dir], { input: archive.stdout });
}

/** The short form's release from the sources under `src` (a checkout or exported sources); node_modules shared. */
export async function compiledRelease(src: string, repo: string, dir: string): Promise<string> {
  const sources = join(src, 'server/src');
  const entryPoints = readdirSync(sources, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(sources, f));
  await build({
    entryPoints,
    outdir: join(dir, 'server/dist'),
    outbase: sources,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
  });
  cpSync(join(sources, 'chains/presets'), join(dir, 'server/dist/chains/presets'), { recursive: true });
  const migrations = join(sources, 'db/migrations');
  if (!existsSync(migrations)) throw new Error(`${migrations}: no migrations`);
  cpSync(join(src, 'server/bin'), join(dir, 'server/bin'), { recursive: true });
  cpSync(join(src, 'server/package.json'), join(dir, 'server/package.json'));
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  // Releases before @paygate/openapi (v0.1.0) read the bundled contracts from ../../../openapi; later ones resolve the
  // package through node_modules (docs/decisions.md §29.20).
  cpSync(join(src, 'openapi'), join(dir, 'openapi'), { recursive: true });
  return dir;
}

/** The full form's release: a clone of `ref` turned into a release by deploy/install.sh. */
export function installedRelease(repo: string, ref: string, dir: string, log: (line: string) => void): string {
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, dir]);
  execFileSync('git', ['-C', dir, 'checkout', '--quiet', ref]);
  const started = Date.now();
  const res = spawnSync('bash', ['deploy/install.sh'], { cwd: dir, stdio: 'inherit' });
  if (res.status !== 0) throw new Error(`deploy/install.sh exited ${res.status}`);
  log(`install.sh of ${ref}: ${Math.round((Date.now() - started) / 1000)} s`);
  return dir;
}
