/**
 * `npm run rehearsal [-- --short] [--dir <dir>] [--no-upgrade] [--table <file>]`: the production rehearsal of issue
 * 34 (docs/decisions.md §29.9–§29.12). One scripted run on this machine with the deployment files of deploy/:
 * PostgreSQL, the chains as their own process, 2 API processes and 2 workers started from the systemd units'
 * command lines, nginx with TLS from a throwaway CA, an HTTPS webhook receiver, steady traffic; then the steps,
 * each printing a row of the table. Exits 1 when a row has a failure or a loss.
 *
 * Full form: releases made by deploy/install.sh (about ten minutes each). `--short`: the workspace's build compiled
 * by esbuild, fewer payments in the delivery burst. The upgrade step needs the previous release's tag (v0.1.0); a
 * clone without tags skips it and says so.
 *
 * This file is a launcher: it makes the run's directory and CA, then runs main.ts with NODE_EXTRA_CA_CERTS pointing
 * at the CA, the way a host that trusts its own CA runs its clients (Node reads that variable only at start).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTls } from './tls.js';

const args = process.argv.slice(2);
const at = args.indexOf('--dir');
const dir = at >= 0 ? resolve(args[at + 1]!) : mkdtempSync(join(tmpdir(), 'paygate-rehearsal-'));
const tls = makeTls(join(dir, 'tls'));
const here = dirname(fileURLToPath(import.meta.url));
const res = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--conditions=@paygate/source',
    join(here, 'main.ts'),
    ...args,
    ...(at >= 0 ? [] : ['--dir', dir]),
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.ca, REHEARSAL_TLS_DIR: join(dir, 'tls') } },
);
process.exit(res.status ?? 1);
