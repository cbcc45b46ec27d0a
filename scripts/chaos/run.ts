/**
 * One chaos run (docs/decisions.md §27.15): API and worker processes over PostgreSQL, every chain endpoint behind a
 * fault proxy, payments of every kind flowing while faults hit the endpoints and processes are killed with SIGKILL
 * and started again; then the faults stop, the run waits (bounded) for the money to settle, and the invariants
 * (test/helpers/invariants.ts) are checked. `npm run chaos` and the short run in `npm test` both call `runChaos`.
 */
import type { Database } from '@paygate/server';
import { checkInvariants, scopeOf, type Violation } from '../../test/helpers/invariants.js';
import { apiClient } from './client.js';
import { healAll, healOne, injectFault, type InjectedFault } from './faults.js';
import { FLOW_KINDS, runFlow, type FlowKind, type FlowResult } from './flows.js';
import { killProcess, startProcess, type ChaosProcess } from './processes.js';
import { prng, type Prng } from './prng.js';
import { startChaosWorld, type ChaosWorld } from './world.js';

export interface ChaosOptions {
  seed: number;
  /** How long payments flow under faults and kills. */
  durationMs: number;
  database: { url: string; db: Database };
  apis?: number;
  workers?: number;
  /** Payments driven at once. */
  concurrency?: number;
  /** The mean pause between two kills. */
  killEveryMs?: number;
  /** The bound on waiting for the money to settle once the faults stop. */
  settleMs?: number;
  log?: (line: string) => void;
}

export interface ChaosSummary {
  seed: number;
  durationMs: number;
  /** Payments by kind, then by the status they ended in. */
  payments: Record<string, Record<string, number>>;
  /** Flows the gateway stopped (an answer such as no option), and flows that failed outright, with why. */
  flowStops: Record<string, number>;
  faults: Record<string, number>;
  kills: { api: number; worker: number };
  moves: Record<string, Record<string, number>>;
  refundAsks: Record<string, number>;
  deliveries: Record<string, number>;
  /** Starts of a killed process that failed (it exited before it was ready), by the reason it printed. */
  failedStarts: Record<string, number>;
  /** What the processes logged at error level, by message, over the run. */
  serverErrors: Record<string, number>;
  settled: boolean;
  /** What the last look before the end saw still on its way. */
  settleState: string;
  violations: Violation[];
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const bump = (map: Record<string, number>, key: string, by = 1) => (map[key] = (map[key] ?? 0) + by);

export async function runChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const log = options.log ?? (() => undefined);
  const processes: ChaosProcess[] = [
    ...Array.from({ length: options.apis ?? 2 }, (_, i) => ({ name: `api${i + 1}`, kind: 'api' as const })),
    ...Array.from({ length: options.workers ?? 1 }, (_, i) => ({ name: `worker${i + 1}`, kind: 'worker' as const })),
  ].map((p) => ({ ...p, child: null, url: null, starts: 0 }));
  const summary: ChaosSummary = {
    seed: options.seed,
    durationMs: options.durationMs,
    payments: {},
    flowStops: {},
    faults: {},
    kills: { api: 0, worker: 0 },
    moves: {},
    refundAsks: {},
    deliveries: {},
    serverErrors: {},
    failedStarts: {},
    settled: false,
    settleState: '',
    violations: [],
  };
  // The children load while the world creates its accounts: their first start is the longest step of a short run.
  let starting: Promise<unknown> = Promise.resolve();
  const world = await startChaosWorld(options.database, (env) => {
    starting = Promise.all(processes.map((p) => startProcess(p, env)));
    starting.catch(() => undefined);
  }).catch(async (err: unknown) => {
    await starting.catch(() => undefined);
    await Promise.all(processes.map((p) => killProcess(p)));
    throw err;
  });
  log('world started');
  const results: FlowResult[] = [];
  let stopping = false;
  let miner: Promise<void> = Promise.resolve();
  try {
    await starting;
    log(`processes up: ${processes.map((p) => p.name).join(', ')}`);
    const evm = world.chains.local!.evm;
    let mining = true;
    // anvil mines a block per transaction only; blocks on a clock give confirmations and finality (64 deep) a pace.
    miner = (async () => {
      while (mining) {
        await evm.test.mine({ blocks: 2 }).catch(() => undefined);
        await pause(250);
      }
    })();
    const stopMining = () => (mining = false);

    const started = Date.now();
    const until = () => stopping || Date.now() - started > options.durationMs;
    const clientRng = prng(options.seed ^ 0x5eed);
    const call = apiClient(processes, clientRng, () => false);
    const flows = Array.from({ length: options.concurrency ?? 3 }, async (_, lane) => {
      const rng = prng(options.seed * 31 + lane);
      const ctx = { world, call, rng, refunded: (o: string) => bump(summary.refundAsks, o) };
      while (!until()) {
        const kind: FlowKind = rng.pick(FLOW_KINDS);
        try {
          const result = await runFlow(kind, ctx, until);
          results.push(result);
          if (result.stopped) bump(summary.flowStops, `${kind}: ${result.stopped}`);
        } catch (err) {
          results.push({ kind, paymentId: null });
          bump(summary.flowStops, `${kind}: ${String((err as Error).message ?? err).slice(0, 120)}`);
        }
      }
    });
    const faults = (async () => {
      const rng = prng(options.seed * 17 + 1);
      for (let i = 1; !until(); i++) {
        await pause(rng.int(300, 2_500));
        if (until()) break;
        const injected: InjectedFault = await injectFault(world, rng);
        bump(summary.faults, `${injected.chain} ${injected.kind}`);
        if (i % 6 === 0) healOne(world, rng);
      }
    })();
    const restarts: Promise<void>[] = [];
    const kills = (async () => {
      const rng = prng(options.seed * 13 + 2);
      const every = options.killEveryMs ?? 20_000;
      const down = new Set<ChaosProcess>();
      for (;;) {
        await pause(rng.int(every / 2, (every * 3) / 2));
        if (until()) break;
        const victim = pickVictim(processes, down, summary.kills, rng);
        if (!victim) continue;
        collectErrors(victim, summary);
        await killProcess(victim);
        summary.kills[victim.kind] += 1;
        log(`killed ${victim.name}`);
        // As a supervisor (systemd's Restart=always) does, for each process on its own: the schedule of kills goes on
        // while a killed process starts again, as crashes do not wait for each other's restarts.
        down.add(victim);
        restarts.push(
          restart(victim, world, summary, log).finally(() => {
            down.delete(victim);
          }),
        );
      }
    })();
    await Promise.all([...flows, faults, kills]);
    await Promise.all(restarts);
    stopping = true;
    healAll(world);
    log(`traffic stopped after ${Math.round((Date.now() - started) / 1000)} s; settling`);

    for (const p of processes) if (!p.url && p.kind === 'api') await startProcess(p, world.env);
    for (const p of processes) if (!p.child) await startProcess(p, world.env);
    const headAtStop = await evm.clients.public.getBlockNumber({ cacheTime: 0 });
    const settling = Date.now();
    summary.settled = await settle(world, headAtStop, options.settleMs ?? 180_000, summary, log);
    log(`${summary.settled ? 'settled' : 'not settled'} after ${Math.round((Date.now() - settling) / 1000)} s`);
    const serving = processes.flatMap((p) => (p.url ? [p.url] : []));
    summary.violations.push(...(await checkInvariants({ ...scopeOf(world.checker), serving, only: ['serving'] })));
    // The rest is checked on a quiet world: no process left to plan a payout between two reads.
    await Promise.all(processes.map((p) => stopGracefully(p)));
    log('processes stopped');
    if ((await inFlight(world)) > 0) {
      log('moves in flight after the stop: one worker finishes them');
      const worker = processes.find((p) => p.kind === 'worker')!;
      await startProcess(worker, world.env);
      summary.settled = (await settle(world, headAtStop, options.settleMs ?? 180_000, summary)) && summary.settled;
      await stopGracefully(worker);
    }
    stopMining();
    await miner;
    summary.violations.push(...(await checkInvariants(scopeOf(world.checker, { receivers: [world.receiver] }))));
    await tally(world, results, summary);
    log(`invariants checked: ${summary.violations.length} violation(s)`);
  } finally {
    for (const p of processes) collectErrors(p, summary);
    stopping = true;
    await Promise.all(processes.map((p) => killProcess(p)));
    await world.close();
  }
  return summary;
}

/**
 * The next process to kill: a kind not killed yet first (a short run kills an API and a worker), never one still
 * starting again, and never the last API serving, so buyers always have one to reach.
 */
function pickVictim(
  processes: ChaosProcess[],
  down: Set<ChaosProcess>,
  kills: ChaosSummary['kills'],
  rng: Prng,
): ChaosProcess | null {
  const apisUp = processes.filter((p) => p.kind === 'api' && !down.has(p)).length;
  const candidates = processes.filter((p) => !down.has(p) && (p.kind !== 'api' || apisUp > 1));
  const unkilled = candidates.filter((p) => kills[p.kind] === 0);
  const pool = unkilled.length > 0 ? unkilled : candidates;
  return pool.length > 0 ? rng.pick(pool) : null;
}

/** Starts a killed process again; a start that fails is tried again (up to 20 times), and counted. */
async function restart(
  victim: ChaosProcess,
  world: ChaosWorld,
  summary: ChaosSummary,
  log: (line: string) => void,
): Promise<void> {
  const killedAt = Date.now();
  for (let attempt = 0; attempt < 20 && !victim.child; attempt++) {
    await startProcess(victim, world.env).catch((err: unknown) => {
      const reason =
        String(err)
          .split('\n')
          .find((l) => l.startsWith('paygate:')) ?? String(err).slice(0, 160);
      bump(summary.failedStarts, `${victim.kind}: ${reason}`);
      log(`restart of ${victim.name} failed: ${reason}`);
    });
    if (!victim.child) await pause(2_000);
  }
  const after = Math.round((Date.now() - killedAt) / 1000);
  log(`${victim.name} ${victim.child ? 'ready again' : 'still down'} ${after} s after its kill`);
}

function collectErrors(p: ChaosProcess, summary: ChaosSummary): void {
  for (const [key, n] of p.errors ?? []) bump(summary.serverErrors, key, n);
  p.errors = new Map();
}

async function stopGracefully(p: ChaosProcess): Promise<void> {
  const child = p.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exit;
  clearTimeout(timer);
  p.child = null;
  p.url = null;
}

async function inFlight(world: ChaosWorld): Promise<number> {
  const knex = world.checker.db.knex;
  const counts = await Promise.all([
    knex('sweeps').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
    knex('payouts').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
    knex('onchain_refunds').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
  ]);
  return counts.reduce((s, r) => s + Number((r[0] as { n: number | string }).n), 0);
}

/**
 * Waits until nothing is on its way, twice in a row: no payment processing, no move planned or sent, no delivery
 * pending, and detection past the head of the moment the traffic stopped (so every transfer sent is seen).
 */
async function settle(
  world: ChaosWorld,
  headAtStop: bigint,
  boundMs: number,
  summary: ChaosSummary,
  log: (line: string) => void = () => {},
): Promise<boolean> {
  const knex = world.checker.db.knex;
  const evmChain = world.chains.evm[0]!.config.caip2;
  const deadline = Date.now() + boundMs;
  let quietRounds = 0;
  let previous = '';
  while (Date.now() < deadline) {
    const [processing] = (await knex('payments').where({ status: 'processing' }).count({ n: '*' })) as {
      n: number | string;
    }[];
    const [pending] = (await knex('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' })) as {
      n: number | string;
    }[];
    const cursor = (await knex('scan_cursors').where({ chain_caip2: evmChain }).first('next_block')) as
      { next_block: string } | undefined;
    // No deposit address on the chain: detection has nothing to scan and keeps no cursor.
    const deposits = await knex('deposit_addresses').where({ chain_caip2: evmChain }).first('address');
    const scanned = deposits === undefined || (cursor !== undefined && BigInt(cursor.next_block) > headAtStop);
    const moving = await inFlight(world);
    const quiet = Number(processing!.n) === 0 && Number(pending!.n) === 0 && moving === 0;
    summary.settleState = `${Number(processing!.n)} payments processing, ${Number(pending!.n)} deliveries pending, ${moving} moves in flight, detection ${scanned ? 'past' : 'not past'} block ${headAtStop} (cursor ${cursor?.next_block ?? 'none'})`;
    // What the settling waits for, each time it changes: where a slow settle's time goes.
    const counts = `${processing!.n}/${pending!.n}/${moving}/${scanned}`;
    if (counts !== previous) log(`settling: ${summary.settleState}`);
    previous = counts;
    quietRounds = quiet && scanned ? quietRounds + 1 : 0;
    if (quietRounds >= 2) return true;
    await pause(2_000);
  }
  // A diagnostic must never cost the run its summary.
  summary.settleState += await stuckPayments(world).catch((err: unknown) => `; stuck: not listed (${String(err)})`);
  return false;
}

/**
 * What each payment still processing at the bound waits on: its claim and the jobs under its id (their due time,
 * attempts and last error), so that a run that did not settle says why without a replay.
 */
async function stuckPayments(world: ChaosWorld): Promise<string> {
  const knex = world.checker.db.knex;
  const rows = (await knex('payments as p')
    .leftJoin('payment_claims as c', 'c.payment_id', 'p.id')
    .where('p.status', 'processing')
    .select('p.id', 'c.chain_caip2 as chain', 'c.kind', 'c.state', 'c.tx_id', 'c.details')
    .limit(20)) as { id: string; chain: string; kind: string; state: string; tx_id: string | null; details: unknown }[];
  const lines: string[] = [];
  for (const r of rows) {
    const details = (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>;
    const { rows: jobs } = (await knex.raw(
      `SELECT t.identifier AS task, j.run_at, j.attempts, j.last_error FROM graphile_worker._private_jobs j
         JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE j.key LIKE ?`,
      [`%${r.id}%`],
    )) as { rows: { task: string; run_at: Date; attempts: number; last_error: string | null }[] };
    const jobText = jobs.length
      ? jobs.map(
          (j) => `${j.task} due ${j.run_at.toISOString()} attempts ${j.attempts} ${j.last_error?.slice(0, 80) ?? ''}`,
        )
      : ['no job'];
    lines.push(
      `${r.id} ${r.chain} ${r.kind} claim ${r.state} tx ${r.tx_id ?? 'none'}` +
        `${details?.missingSince ? ` missing since ${new Date(Number(details.missingSince)).toISOString()}` : ''}; ${jobText.join('; ')}`,
    );
  }
  return lines.length ? `; stuck: ${lines.join(' | ')}` : '';
}

async function tally(world: ChaosWorld, results: FlowResult[], summary: ChaosSummary): Promise<void> {
  const knex = world.checker.db.knex;
  const ids = results.flatMap((r) => (r.paymentId ? [r.paymentId] : []));
  const statuses = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = (await knex('payments')
      .whereIn('id', ids.slice(i, i + 500))
      .select('id', 'status')) as {
      id: string;
      status: string;
    }[];
    for (const r of rows) statuses.set(r.id, r.status);
  }
  for (const r of results) {
    const row = (summary.payments[r.kind] ??= {});
    bump(row, r.paymentId ? (statuses.get(r.paymentId) ?? 'unknown') : 'not created');
  }
  for (const table of ['sweeps', 'payouts', 'onchain_refunds']) {
    const rows = (await knex(table).select('state').count({ n: '*' }).groupBy('state')) as {
      state: string;
      n: number | string;
    }[];
    summary.moves[table] = Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }
  const deliveries = (await knex('webhook_deliveries').select('status').count({ n: '*' }).groupBy('status')) as {
    status: string;
    n: number | string;
  }[];
  summary.deliveries = Object.fromEntries(deliveries.map((r) => [r.status, Number(r.n)]));
}

/** The summary as a Markdown table (RELIABILITY.md and the run's output). */
export function summaryMarkdown(s: ChaosSummary): string {
  const rows = (title: string, map: Record<string, number>) =>
    Object.entries(map)
      .sort()
      .map(([k, n]) => `| ${title} | ${k.replace(/\|/g, '/').replace(/\n/g, ' ')} | ${n} |`);
  const paymentRows = Object.entries(s.payments)
    .sort()
    .flatMap(([kind, byStatus]) => rows(`payments ${kind}`, byStatus));
  const moveRows = Object.entries(s.moves)
    .sort()
    .flatMap(([table, byState]) => rows(table, byState));
  return [
    `Seed ${s.seed}, ${(s.durationMs / 60_000).toFixed(1)} min of traffic; settled afterwards: ${s.settled ? 'yes' : `no (bound reached: ${s.settleState})`}.`,
    '',
    '| what | kind / outcome | count |',
    '| --- | --- | ---: |',
    ...paymentRows,
    ...rows('refunds asked', s.refundAsks),
    ...moveRows,
    ...rows('webhook deliveries', s.deliveries),
    ...rows('faults injected', s.faults),
    `| kills (SIGKILL) | api | ${s.kills.api} |`,
    `| kills (SIGKILL) | worker | ${s.kills.worker} |`,
    ...rows('flows stopped', s.flowStops),
    ...rows('failed starts', s.failedStarts),
    ...rows('error log lines', s.serverErrors),
    `| invariant violations | all | ${s.violations.length} |`,
    '',
    ...(s.violations.length === 0
      ? []
      : ['Violations:', '', ...s.violations.map((v) => `- ${v.invariant}: ${v.detail}`)]),
    `Replay: \`npm run chaos -- --seed ${s.seed} --minutes ${(s.durationMs / 60_000).toFixed(1)}\``,
  ].join('\n');
}
