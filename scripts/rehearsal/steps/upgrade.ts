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
  // The old processes still answer ready on the new schema (their readiness checks the migrations they know).
  const oldReady = await Promise.all(d.fleet.apis.map((api) => d.fleet.ready(api)));
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
    failures: w.failures + oldReady.filter((r) => !r).length,
    retries: w.retries + proxyRetries,
    longestPauseMs: w.longestMs,
    lost: missing.length + lost.length,
    note: [
      `${proxyRetries} passed on by nginx, ${w.retries} retried by the SDKs`,
      `migrations applied by the new release: ${applied.length ? applied.join(', ') : 'none'}`,
      `old processes ready on the new schema: ${oldReady.every(Boolean) ? 'yes' : 'NO'}`,
      `old release ${oldRelease.split('/').pop()} → ${o.release.split('/').pop()}`,
      ...w.errors,
      ...missing.slice(0, 5).map((id) => `undelivered ${id}`),
      ...lost,
    ].join('; '),
  };
}
