/**
 * Step 3: PostgreSQL stopped (`pg_ctl -m fast`: sessions ended, a checkpoint) and started again 10 s later, under
 * traffic. While it is down every request must be answered quickly with 503 and an error code (never a 500, never a
 * hang until the proxy gives up); once it is back every process must serve again within 5 s without being
 * restarted; nothing may be lost (every event delivered, no paid payment stuck).
 */
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { eventually } from '../../../test/helpers/wait.js';
import type { StepRow } from '../context.js';
import type { Deployment } from '../deployment.js';
import type { Traffic } from '../traffic.js';
import { undelivered } from '../checks.js';

const DOWN_MS = 10_000;
const RECOVER_MS = 5_000;
/** The server's own request timeout (PAYGATE_REQUEST_TIMEOUT_MS): an answer later than this is a hang. */
const REQUEST_TIMEOUT_MS = 30_000;

interface Probe {
  status: number;
  code: string;
  ms: number;
}

async function probe(d: Deployment, paymentId: string): Promise<Probe> {
  const started = Date.now();
  try {
    const res = await fetch(`${d.baseUrl}/v1/merchant/payment/${paymentId}`, {
      headers: { 'Api-Key': d.merchant.apiKey, 'Merchant-Id': d.merchant.id },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 10_000),
    });
    const body = (await res.json().catch(() => ({}))) as { code?: string };
    return { status: res.status, code: body.code ?? '', ms: Date.now() - started };
  } catch (err) {
    return { status: 0, code: String((err as Error).name), ms: Date.now() - started };
  }
}

/** Payments of the merchant still `processing` (a payment whose confirm was cut off must not stay there). */
async function stuckProcessing(d: Deployment, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const client = new pg.Client({ connectionString: d.pg.url });
  await client.connect();
  try {
    let stuck: string[] = [];
    await eventually(
      'no payment left processing',
      async () => {
        const { rows } = await client.query<{ id: string }>(
          "SELECT id FROM payments WHERE id = ANY($1) AND status = 'processing'",
          [ids],
        );
        stuck = rows.map((r) => r.id);
        return stuck.length === 0;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(() => undefined);
    return stuck;
  } finally {
    await client.end();
  }
}

export async function postgresRestart(d: Deployment, traffic: Traffic, outage: { on: boolean }): Promise<StepRow> {
  const known = traffic.created.at(-1);
  if (!known) throw new Error('no payment created yet');
  traffic.next();
  const paidFrom = traffic.paid.length;
  outage.on = true;
  await d.pg.stop('fast');
  const downAt = Date.now();
  const probes: Probe[] = [];
  while (Date.now() - downAt < DOWN_MS) {
    probes.push(await probe(d, known));
    await delay(250);
  }
  await d.pg.start();
  const upAt = Date.now();
  // Each API process, asked directly, and the workers (a new event delivered) must serve again within 5 s.
  const recovered = await Promise.all(
    d.fleet.apis.map(async (api) => {
      const ok = await eventually(
        `paygate-api@${api.instance} serving`,
        async () => {
          const res = await fetch(`http://127.0.0.1:${api.port}/v1/merchant/payment/${known}`, {
            headers: { 'Api-Key': d.merchant.apiKey, 'Merchant-Id': d.merchant.id },
          }).catch(() => null);
          await res?.arrayBuffer();
          return res?.status === 200;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      ).catch(() => false);
      return { name: `api@${api.instance}`, ms: ok ? Date.now() - upAt : Infinity };
    }),
  );
  // A process that exited was restarted by no one here: recovering means staying up.
  const exited = d.fleet.instances.filter((i) => i.child?.exitCode !== null || i.child?.signalCode !== null);
  outage.on = false;
  const missing = await undelivered(d, 90_000);
  const stuck = await stuckProcessing(
    d,
    traffic.paid
      .slice(paidFrom)
      .map((p) => p.paymentId)
      .filter(Boolean),
  );
  const w = traffic.next();
  const bad = probes.filter((p) => p.status !== 503 || !p.code || p.ms > REQUEST_TIMEOUT_MS);
  const slow = recovered.filter((r) => r.ms > RECOVER_MS);
  const longestProbe = Math.max(0, ...probes.map((p) => p.ms));
  return {
    step: '3. PostgreSQL restart (fast shutdown, down 10 s)',
    requests: w.requests + probes.length,
    failures: w.failures + bad.length + slow.length + exited.length,
    retries: w.retries,
    longestPauseMs: Math.max(w.longestMs, longestProbe),
    lost: missing.length + stuck.length,
    note: [
      `down: ${probes.length} probes answered ${[...new Set(probes.map((p) => `${p.status} ${p.code}`))].join(', ')}, longest ${longestProbe} ms`,
      `${w.refused503} traffic operations refused with 503 while down`,
      `back: ${recovered.map((r) => `${r.name} ${r.ms} ms`).join(', ')}`,
      ...exited.map((i) => `${i.unit}@${i.instance} exited (code ${i.child?.exitCode}, signal ${i.child?.signalCode})`),
      ...w.errors,
      ...missing.slice(0, 5).map((id) => `undelivered ${id}`),
      ...stuck.map((id) => `stuck processing ${id}`),
    ].join('; '),
  };
}
