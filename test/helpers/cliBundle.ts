/**
 * The `paygate` bin as one ES module built from the sources by esbuild, for runs that start many children (the chaos
 * run kills and restarts processes). A child of `server/bin/paygate.js` loads every source file through tsx on each
 * start; on the shared 2-core machine that is tens of seconds per start, the largest part of the chaos short run.
 * The bundle is built from the current sources once per process (about a second), so it can never be stale, and
 * third-party packages stay outside it, loaded from node_modules as the bin loads them.
 *
 * Each source file keeps its own `import.meta.url` (replaced by the file's URL as it is bundled): the server finds
 * its contracts, chain presets, docs and web pages relative to its source files, and would look beside the bundle
 * otherwise. The bundle sits in server/.chaos-dist so that packages resolve from server/node_modules first, as from
 * the sources.
 */
import { rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { repoRoot } from './cli.js';

/** One bundle per process: a run beside another (a chaos run while the tests run) never loads the other's sources. */
const OUT = join(repoRoot, `server/.chaos-dist/cli-${process.pid}.mjs`);

let built: Promise<string> | undefined;

/** The path of the bundled bin, built on the first call. */
export function cliBundle(): Promise<string> {
  return (built ??= bundle());
}

async function bundle(): Promise<string> {
  process.once('exit', () => rmSync(OUT, { force: true }));
  await build({
    entryPoints: [join(repoRoot, 'server/src/cli.ts')],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@paygate/source'],
    sourcemap: 'inline',
    logLevel: 'error',
    plugins: [
      {
        name: 'paygate-sources',
        setup(b) {
          // The workspace's packages are bundled from source; every other package is loaded at run time.
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@paygate/') ? undefined : { path: args.path, external: true },
          );
          b.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            return {
              contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
              loader: 'ts',
            };
          });
        },
      },
    ],
  });
  return OUT;
}
