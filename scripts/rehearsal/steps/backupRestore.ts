/**
 * Step 5: backup and restore, as OPERATIONS.md tells an operator to do it. `pg_dump` while the traffic runs; then the
 * disaster (every process stopped, the cluster gone); a new cluster, `createdb`, `pg_restore`, `paygate migrate`,
 * `paygate admin verify-secrets` with the same PAYGATE_ENCRYPTION_KEY; the processes started against it and the
 * traffic resumed. Lost: a payment, API key or webhook endpoint that existed before the dump and is not in the
 * restored database, a payment paid after the restore that did not succeed, an event of the restored database the
 * receiver never verified (its endpoint's secret must open under the same key for the signature to match).
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
  await Promise.all(d.fleet.instances.map((i) => d.fleet.start(i)));
  const restoreMs = Date.now() - restoreStarted;
  const absent = missing(before, await inventory(restored.url));

  // Traffic resumes on the restored deployment: every kind of payment is paid once more.
  const paidFrom = traffic.paid.length;
  traffic.start();
  await eventually('a payment of each kind paid on the restored database', () => traffic.paid.length >= paidFrom + 3, {
    timeoutMs: 240_000,
    intervalMs: 250,
  }).catch(() => undefined);
  const after = traffic.next();
  const lostPayments = unpaid(traffic, paidFrom);
  const lostEvents = await undelivered(d, 90_000);
  const lost = [...absent, ...lostPayments, ...lostEvents.map((id) => `event ${id} not delivered`)];
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
      `${traffic.paid.length - paidFrom} payments paid after it`,
      ...during.errors,
      ...after.errors,
      ...lost.slice(0, 10),
    ].join('; '),
  };
}
