/**
 * Step 4: the upgrade from the previous release. The deployment was installed from the previous tag and has served
 * traffic; the new release's `paygate migrate` runs while the old processes still serve (so every migration since
 * the tag must be expand-only: the old code must keep working on the new schema), then each process is rolled onto
 * the new release one at a time. Payments in flight complete; the keys, app id, webhook endpoint and its secret made
 * by the old release keep working (the traffic and the receiver use them throughout).
 */
import { eventually } from '../../../test/helpers/wait.js';
import type { StepRow } from '../context.js';
import type { Deployment } from '../deployment.js';
import type { Traffic } from '../traffic.js';
import { undelivered, unpaid } from '../checks.js';

export async function upgrade(d: Deployment, traffic: Traffic, o: { from: string; release: string }): Promise<StepRow> {
  traffic.next();
  const paidFrom = traffic.paid.length;
  const proxyRetriesBefore = d.proxy.retried();
  const oldRelease = d.paths.release;
  // The new release's migrations, applied by its own CLI while the old processes serve.
  d.paths.release = o.release;
  const migrated = await d.run('paygate', ['migrate', '--json']);
  if (migrated.code !== 0) throw new Error(`paygate migrate (new release): ${migrated.stderr}`);
  const applied = (JSON.parse(migrated.stdout) as { applied?: string[] }).applied ?? [];
  // The old processes still serve on the new schema: a read of a payment, sent to each process itself rather than
  // through nginx (which would pass it to any process), and their readiness. v0.1.0's readiness refuses a schema
  // ahead of it (knex calls it "corrupt", §29.22); this release's accepts it. A process whose only failing check is
  // that one but which serves is reported, not counted: its release cannot be changed any more, and the shipped
  // proxy does not route by readiness. Any other failing check, or a read that fails, counts.
  const oldServes = await Promise.all(d.fleet.apis.map((api) => servesPayment(d, api.port, traffic)));
  const oldFailing = await Promise.all(d.fleet.apis.map((api) => d.fleet.failingChecks(api)));
  const schemaAheadOnly = oldFailing.filter((f) => f.length === 1 && f[0] === 'migrations').length;
  const oldBroken = oldFailing.filter(
    (f, n) => !oldServes[n] || (f.length > 0 && !(f.length === 1 && f[0] === 'migrations')),
  );
  await traffic.settle(4);
  d.fleet.useRelease(o.release);
  for (const i of d.fleet.instances) await d.fleet.restart(i);
  await traffic.settle(6);
  // Every payment the buyer loop started before or during the roll ends (the last may still be in flight).
  await eventually('the payments in flight to end', () => traffic.paid.length > paidFrom, { timeoutMs: 120_000 });
  const missing = await undelivered(d, 90_000);
  const w = traffic.next();
  const proxyRetries = d.proxy.retried() - proxyRetriesBefore;
  const lost = unpaid(traffic, paidFrom);
  return {
    step: `4. upgrade ${o.from} → this commit (migrate while old serve, roll)`,
    requests: w.requests,
    failures: w.failures + oldBroken.length,
    retries: w.retries + proxyRetries,
    longestPauseMs: w.longestMs,
    lost: missing.length + lost.length,
    note: [
      `${proxyRetries} passed on by nginx, ${w.retries} retried by the SDKs`,
      `migrations applied by the new release: ${applied.length ? applied.join(', ') : 'none'}`,
      `old processes serving on the new schema: ${oldServes.filter(Boolean).length} of ${oldServes.length}`,
      `old processes ready: ${oldFailing.filter((f) => f.length === 0).length} of ${oldFailing.length}` +
        (schemaAheadOnly
          ? ` (${schemaAheadOnly} failing only the migrations check: the old release refuses a schema ahead of it)`
          : ''),
      ...oldFailing.flatMap((f, n) =>
        f.length ? [`old api@${d.fleet.apis[n]!.instance} failing: ${f.join(', ')}`] : [],
      ),
      `old release ${oldRelease.split('/').pop()} → ${o.release.split('/').pop()}`,
      ...w.errors,
      ...missing.slice(0, 5).map((id) => `undelivered ${id}`),
      ...lost,
    ].join('; '),
  };
}

/** A read that needs the database: the last payment the buyer loop paid, asked of one API process directly. */
async function servesPayment(d: Deployment, port: number, traffic: Traffic): Promise<boolean> {
  const last = traffic.paid.at(-1);
  if (!last) return false;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/v1/merchant/payment/${last.paymentId}`, {
      headers: { 'Api-Key': d.merchant.apiKey, 'Merchant-Id': d.merchant.id },
      signal: AbortSignal.timeout(5000),
    });
    // The payment snapshot, with the webhooks' snake_case fields.
    const body = (await res.json()) as { payment_id?: string };
    return res.status === 200 && body.payment_id === last.paymentId;
  } catch {
    return false;
  }
}
