/**
 * Step 5: backup and restore, as OPERATIONS.md tells an operator to do it. `pg_dump` while the traffic runs; then the
 * disaster (every process stopped, the cluster gone); a new cluster, `createdb`, `pg_restore`, `paygate migrate`,
 * `paygate admin verify-secrets` with the same PAYGATE_ENCRYPTION_KEY; the processes started against it and the
 * traffic resumed. Lost: a payment, API key or webhook endpoint that existed before the dump and is not in the
 * restored database, a payment paid after the restore that did not succeed, an event of the restored database the
 * receiver never verified (its endpoint's secret must open under the same key for the signature to match).
 *
 * A job running at the moment of the dump is restored locked by a locker id of the old cluster's processes, which no
 * process of the new one will ever hold: the liveness sweep (docs/decisions.md §27.25) must free it. The step locks
 * one job of a task no worker runs just before the dump (so the dump surely holds a locked job, and freeing it runs
 * nothing), and counts it lost if it is still locked two minutes after the restored processes start.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { eventually } from '../../../test/helpers/wait.js';
import type { StepRow } from '../context.js';
import type { Deployment } from '../deployment.js';
import { startPostgres } from '../postgres.js';
import type { Traffic } from '../traffic.js';
import { undelivered, unpaid } from '../checks.js';

interface Inventory {
  payments: string[];
  apiKeys: string[];
  endpoints: string[];
}

async function inventory(url: string): Promise<Inventory> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ids = async (table: string) =>
      (await client.query<{ id: string }>(`SELECT id FROM ${table}`)).rows.map((r) => String(r.id));
    return {
      payments: await ids('payments'),
      apiKeys: await ids('api_keys'),
      endpoints: await ids('webhook_endpoints'),
    };
  } finally {
    await client.end();
  }
}

/** A task no worker has: once freed, the job stays queued, untouched, until the step deletes it. */
const DUMP_LOCKED_TASK = 'rehearsal_locked_at_dump';

/** Adds a job and locks it as a worker of the running deployment would, under an id no process holds. */
async function lockJobForDump(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `SELECT (graphile_worker.add_job($1, '{}'::json, max_attempts => 1)).id::text AS id`,
      [DUMP_LOCKED_TASK],
    );
    const id = rows[0]!.id;
    await client.query(
      'UPDATE graphile_worker._private_jobs SET locked_by = $2, locked_at = now() WHERE id = $1::bigint',
      [id, `worker-rehearsal-dump-${randomBytes(6).toString('hex')}`],
    );
    return id;
  } finally {
    await client.end();
  }
}

/** The restored database's locked jobs, read before any process starts: the dump's, as pg_dump saw them. */
async function restoredLocks(url: string, jobId: string): Promise<{ locked: number; ours: boolean }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      'SELECT id::text AS id FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL',
    );
    return { locked: rows.length, ours: rows.some((r) => r.id === jobId) };
  } finally {
    await client.end();
  }
}

/** How long the job locked at the dump stayed locked on the restored cluster (null: still locked at the bound). */
async function freedAfter(url: string, jobId: string, since: number): Promise<{ ms: number | null }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const freed = await eventually(
      'the job locked at the dump freed',
      async () => {
        const { rows } = await client.query<{ locked_by: string | null }>(
          'SELECT locked_by FROM graphile_worker._private_jobs WHERE id = $1::bigint',
          [jobId],
        );
        return rows.length === 0 || rows[0]!.locked_by === null;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    )
      .then(() => true)
      .catch(() => false);
    const ms = freed ? Date.now() - since : null;
    await client.query('DELETE FROM graphile_worker._private_jobs WHERE id = $1::bigint', [jobId]);
    return { ms };
  } finally {
    await client.end();
  }
}

function missing(before: Inventory, after: Inventory): string[] {
  const out: string[] = [];
  for (const kind of ['payments', 'apiKeys', 'endpoints'] as const) {
    const have = new Set(after[kind]);
    out.push(...before[kind].filter((id) => !have.has(id)).map((id) => `${kind} ${id} missing`));
  }
  return out;
}

export async function backupRestore(d: Deployment, traffic: Traffic): Promise<StepRow> {
  traffic.next();
  const backups = join(d.dir, 'backups');
  mkdirSync(backups, { recursive: true, mode: 0o700 });
  const dump = join(backups, 'paygate.dump');
  const secrets = join(d.paths.etc, 'secrets');
  const check = (what: string, r: { code: number; stderr: string; stdout: string }) => {
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return r;
  };

  // Everything that exists before the dump starts must be in it.
  const before = await inventory(d.pg.url);
  const lockedJob = await lockJobForDump(d.pg.url);
  const dumpStarted = Date.now();
  check(
    'pg_dump',
    await d.run('sh', ['-c', `pg_dump --format=custom --file=${dump} "$(cat ${secrets}/database-url)"`], {
      env: { PATH: `${d.pg.bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    }),
  );
  const dumpMs = Date.now() - dumpStarted;
  await traffic.settle(3);
  await traffic.stop();
  const during = traffic.next();

  // The disaster: the processes and the database host are gone; the dump and the secrets are what is left.
  await d.fleet.stopAll();
  await d.pg.stop('fast');
  const restoreStarted = Date.now();
  const restored = await startPostgres(join(d.dir, 'pg-restored'), randomBytes(12).toString('hex'), {
    database: false,
  });
  const previousClose = d.close;
  d.close = async () => {
    await previousClose();
    restored.close();
  };
  // The new host's local superuser session, as `sudo -u postgres` gives it.
  const superuser = {
    PATH: `${restored.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    PGHOST: '127.0.0.1',
    PGPORT: String(restored.port),
    PGUSER: 'postgres',
  };
  check('createdb', await d.run('createdb', ['--owner=paygate', 'paygate'], { env: superuser }));
  check('pg_restore', await d.run('pg_restore', ['--dbname=paygate', dump], { env: superuser }));
  writeFileSync(join(secrets, 'database-url'), `${restored.url}\n`, { mode: 0o600 });
  d.pg = restored;
  const migrated = JSON.parse(check('paygate migrate', await d.run('paygate', ['migrate', '--json'])).stdout) as {
    applied?: string[];
  };
  const verified = await d.run('paygate', ['admin', 'verify-secrets']);
  const locks = await restoredLocks(restored.url, lockedJob);
  await Promise.all(d.fleet.instances.map((i) => d.fleet.start(i)));
  const restoreMs = Date.now() - restoreStarted;
  const startedAt = Date.now();
  const absent = missing(before, await inventory(restored.url));
  // Watched while the traffic resumes: the sweep waits its grace after the new cluster's start.
  const unlocking = freedAfter(restored.url, lockedJob, startedAt).catch((err: unknown) => ({
    ms: null,
    error: String(err),
  }));

  // Traffic resumes on the restored deployment: every kind of payment is paid once more.
  const paidFrom = traffic.paid.length;
  traffic.start();
  // Each of the SDK buyer's kinds, whatever the page buyer (browser.ts) pays meanwhile.
  const kindsPaid = () => new Set(traffic.paid.slice(paidFrom).map((p) => p.kind));
  const each = () => (['gasless', 'direct', 'solana'] as const).every((k) => kindsPaid().has(k));
  await eventually('a payment of each kind paid on the restored database', each, {
    timeoutMs: 240_000,
    intervalMs: 250,
  }).catch(() => undefined);
  const after = traffic.next();
  const unlock = await unlocking;
  const lostPayments = unpaid(traffic, paidFrom);
  const lostEvents = await undelivered(d, 90_000);
  const lost = [
    ...absent,
    ...lostPayments,
    ...lostEvents.map((id) => `event ${id} not delivered`),
    ...(unlock.ms === null
      ? [`job ${lockedJob} locked at the dump not freed in 120 s${'error' in unlock ? `: ${unlock.error}` : ''}`]
      : []),
    // The check proves nothing unless the dump did carry the lock.
    ...(locks.ours ? [] : [`job ${lockedJob} locked before the dump was not locked in the restored database`]),
  ];
  const failures = during.failures + after.failures + (verified.code === 0 ? 0 : 1);
  return {
    step: '5. backup during traffic, restore into a new cluster',
    requests: during.requests + after.requests,
    failures,
    retries: during.retries + after.retries,
    longestPauseMs: Math.max(during.longestMs, after.longestMs),
    lost: lost.length,
    note: [
      `dump ${Math.round(statSync(dump).size / 1024)} KiB in ${dumpMs} ms under traffic`,
      `before it ${before.payments.length} payments, ${before.apiKeys.length} keys, ${before.endpoints.length} endpoints: ${absent.length} missing after the restore`,
      `migrations applied after the restore: ${migrated.applied?.length ?? 0}`,
      `verify-secrets exit ${verified.code}${verified.code === 0 ? '' : `: ${verified.stdout}${verified.stderr}`}`,
      `restore to every process ready ${restoreMs} ms`,
      `${locks.locked} jobs restored locked (1 on purpose${locks.ours ? '' : ', NOT among them'}), that one freed by the liveness sweep ${unlock.ms ?? 'never'} ms after the processes started`,
      `${traffic.paid.length - paidFrom} payments paid after it`,
      ...during.errors,
      ...after.errors,
      ...lost.slice(0, 10),
    ].join('; '),
  };
}
