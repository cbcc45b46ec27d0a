/**
 * The rehearsal's PostgreSQL: a throwaway cluster from the system binaries (as test/helpers/postgres.ts finds them),
 * with a database and a password-protected role of its own for Paygate, that a step can stop (`pg_ctl -m fast`) and
 * start again on the same port and data directory.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { RehearsalPostgres } from './context.js';
import { freePort } from './net.js';

export function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(base, v, 'bin/initdb'))) return join(base, v, 'bin');
  }
  throw new Error('PostgreSQL server binaries not found: install the `postgresql` package');
}

/**
 * `database: false` makes the cluster and the `paygate` role only: the database is then the operator's to create
 * (a restore creates it with `createdb` before `pg_restore`).
 */
export async function startPostgres(
  dir: string,
  password: string,
  o: { database?: boolean } = {},
): Promise<RehearsalPostgres & { close(): void }> {
  const bin = postgresBin();
  mkdirSync(dir, { recursive: true });
  const dataDir = join(dir, 'data');
  // initdb refuses root: the cluster runs as the `postgres` user then, as Debian's package runs it.
  let ids: { uid: number; gid: number } | object = {};
  if (userInfo().uid === 0) {
    // The run's directory may be a private mkdtemp: the postgres user must at least traverse it to reach its own.
    const parent = dirname(dir);
    chmodSync(parent, statSync(parent).mode | 0o011);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    ids = { uid, gid };
  }
  chmodSync(dir, 0o700);
  const run = (cmd: string, args: string[], allowFailure = false) => {
    const res = spawnSync(join(bin, cmd), args, { ...ids, encoding: 'utf8', cwd: dir });
    if (res.status !== 0 && !allowFailure) throw new Error(`${cmd} failed: ${res.stderr || res.stdout}`);
    return res;
  };
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
  const port = await freePort();
  // 4 processes × the pool's 10 connections, the operator's commands and the dump of the ops steps.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const start = async () => {
    run('pg_ctl', ['-D', dataDir, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  await start();
  const psql = (sql: string) => run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-c', sql]);
  psql(`CREATE ROLE paygate LOGIN PASSWORD '${password}'`);
  if (o.database !== false) psql('CREATE DATABASE paygate OWNER paygate');
  return {
    url: `postgres://paygate:${password}@127.0.0.1:${port}/paygate`,
    bin,
    dataDir,
    port,
    stop,
    start,
    close: () => void run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], true),
  };
}
