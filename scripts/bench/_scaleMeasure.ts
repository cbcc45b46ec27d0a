/**
 * The scale benchmark's measurements (scripts/bench/scale.ts): each read through the real HTTP API of a real app (the
 * merchant API with an API key, the dashboard API with a session and its CSRF token), the CSV exports streamed and
 * counted, and creates through the merchant API.
 */
import { createApp, type Database, type Runtime } from '@paygate/server';
import { createSession, csrfTokenOf } from '../../server/src/users/sessions.js';
import { addMembership, createUser } from '../../server/src/users/userAccounts.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { createMerchantAccount, type MerchantAccount } from '../../test/helpers/fixtures.js';
import { listen, type Listening } from '../../test/helpers/http.js';
import { startReceiver } from '../../test/helpers/receiver.js';
import { testClock, testRuntime } from '../../test/helpers/runtime.js';
import { DAY, random, type Fill } from './_scaleSeed.js';

export interface Served {
  runtime: Runtime;
  server: Listening;
  account: MerchantAccount;
  session: { cookie: string; csrfToken: string };
  fill: Fill;
  close(): Promise<void>;
}

/** The app over `db`, a merchant with keys, a signed-in owner, 50 other merchants, and an empty fill. */
export async function serve(db: Database, now = Date.now()): Promise<Served> {
  const clock = testClock(now);
  const runtime = await testRuntime({
    db,
    clock,
    config: { PAYGATE_RATE_LIMIT_RPS: '1000000', PAYGATE_RATE_LIMIT_BURST: '1000000' },
  });
  const server = await listen(createApp({ runtime }));
  const account = await createMerchantAccount(runtime);
  const user = await createUser(runtime, { email: `owner.${now}@shop.example.com`, password: 'correct horse battery' });
  await addMembership(runtime, user.id, account.merchantId, 'owner');
  const { token, session } = await createSession(runtime, user.id, { ip: '127.0.0.1', userAgent: null });
  const others: string[] = [];
  for (let i = 0; i < 50; i++)
    others.push((await createMerchantAccount(runtime, { partnerId: account.partnerId })).merchantId);
  // The merchant's endpoint answers at once: creates then go the way a merchant with webhooks makes them go.
  const receiver = await startReceiver();
  const { endpoint } = await createEndpoint(runtime, account.merchantId, 'test', { url: `${receiver.url}/paygate` });
  const fill: Fill = {
    runtime,
    knex: db.knex,
    now,
    merchantId: account.merchantId,
    otherMerchants: others,
    endpointId: endpoint.id,
    rand: random(36),
    filled: 0,
    seq: 0,
    sample: [],
  };
  return {
    runtime,
    server,
    account,
    session: { cookie: `paygate_session=${token}`, csrfToken: csrfTokenOf(runtime, session.id) },
    fill,
    async close() {
      await server.close();
      await runtime.close();
      await receiver.close();
    },
  };
}

export function merchantHeaders(s: Served): Record<string, string> {
  return { 'Api-Key': s.account.testKey, 'Merchant-Id': s.account.merchantId };
}
export function dashboardHeaders(s: Served): Record<string, string> {
  return {
    Cookie: s.session.cookie,
    'X-CSRF-Token': s.session.csrfToken,
    'Merchant-Id': s.account.merchantId,
    'Paygate-Mode': 'test',
  };
}

export interface Read {
  name: string;
  api: 'merchant' | 'dashboard';
  /** The i-th call's path. */
  path: (i: number) => string;
  /** The target p95 in ms. */
  target: number;
}

/** Ids the deep pages start after: a row of the merchant about 360 days old. */
async function deepCursors(s: Served): Promise<{ payment: string; delivery: string; audit: string; payout: string }> {
  const k = s.fill.knex;
  const old = s.fill.now - 360 * DAY;
  const first = async (table: string, at: string, scope: Record<string, unknown>) =>
    String(
      (
        (await k(table).where(scope).andWhere(at, '<', old).orderBy(at, 'desc').first('id')) as
          { id: string } | undefined
      )?.id ?? '',
    );
  const m = s.account.merchantId;
  return {
    payment: await first('payments', 'created_at', { merchant_id: m, live: false }),
    delivery: await first('webhook_deliveries', 'created_at', { merchant_id: m, live: false }),
    audit: await first('audit_log', 'at', { merchant_id: m }),
    payout: await first('payouts', 'created_at', { merchant_id: m, live: false }),
  };
}

export async function readsOf(s: Served, timelineId: string): Promise<Read[]> {
  const sample = s.fill.sample;
  const at = (i: number) => sample[(i * 7919) % sample.length]!;
  const deep = await deepCursors(s);
  const eventOf = (
    (await s.fill.knex('events').where({ payment_id: sample[0]!.id }).first('id')) as { id: string } | undefined
  )?.id;
  const weekAgo = Math.floor((s.fill.now - 7 * DAY) / 1000);
  const M = '/v1/merchant';
  const D = '/v1/dashboard';
  return [
    { name: 'payment by id', api: 'merchant', path: (i) => `${M}/payment/${at(i).id}`, target: 50 },
    { name: 'payment status', api: 'merchant', path: (i) => `${M}/payment/${at(i).id}/status`, target: 50 },
    { name: 'payments list', api: 'merchant', path: () => `${M}/payments?limit=20`, target: 50 },
    { name: 'list status=failed', api: 'merchant', path: () => `${M}/payments?status=failed`, target: 50 },
    {
      name: 'list settled=false',
      api: 'merchant',
      path: () => `${M}/payments?status=succeeded&settled=false`,
      target: 50,
    },
    { name: 'list settled=true', api: 'merchant', path: () => `${M}/payments?settled=true`, target: 50 },
    { name: 'list last 7 days', api: 'merchant', path: () => `${M}/payments?createdGte=${weekAgo}`, target: 50 },
    {
      name: 'list deep cursor',
      api: 'merchant',
      path: () => `${M}/payments?startingAfter=${deep.payment}`,
      target: 50,
    },
    {
      name: 'list by referenceId',
      api: 'dashboard',
      path: (i) => `${D}/payments?referenceId=${at(i).reference_id}`,
      target: 50,
    },
    {
      name: 'timeline (2,000 deliveries)',
      api: 'dashboard',
      path: () => `${D}/payments/${timelineId}/timeline`,
      target: 50,
    },
    { name: 'overview (today, 7, 30 days)', api: 'dashboard', path: () => `${D}/overview`, target: 100 },
    { name: 'balances', api: 'dashboard', path: () => `${D}/balances`, target: 50 },
    { name: 'payouts list', api: 'merchant', path: () => `${M}/payouts`, target: 50 },
    {
      name: 'payouts deep cursor',
      api: 'merchant',
      path: () => `${M}/payouts?startingAfter=${deep.payout}`,
      target: 50,
    },
    { name: 'audit log', api: 'dashboard', path: () => `${D}/audit-log`, target: 50 },
    {
      name: 'audit log deep cursor',
      api: 'dashboard',
      path: () => `${D}/audit-log?startingAfter=${deep.audit}`,
      target: 50,
    },
    { name: 'delivery log', api: 'dashboard', path: () => `${D}/webhook-deliveries`, target: 50 },
    {
      name: 'delivery log status=failed',
      api: 'dashboard',
      path: () => `${D}/webhook-deliveries?status=failed`,
      target: 50,
    },
    {
      name: 'delivery log eventType',
      api: 'dashboard',
      path: () => `${D}/webhook-deliveries?eventType=payment.failed`,
      target: 50,
    },
    {
      name: 'delivery log eventId',
      api: 'dashboard',
      path: () => `${D}/webhook-deliveries?eventId=${eventOf}`,
      target: 50,
    },
    {
      name: 'delivery log deep cursor',
      api: 'dashboard',
      path: () => `${D}/webhook-deliveries?startingAfter=${deep.delivery}`,
      target: 50,
    },
  ];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

export interface Timing {
  p50: number;
  p95: number;
  /**
   * The same server's `/healthz` (no database), called before each call of the read: the baseline of the moment. On
   * a shared machine the load moves every figure; a read's p95 over this one's moves with the read's own cost.
   */
  bareP50?: number;
  bareP95?: number;
}

async function timed(url: string, headers: Record<string, string>, what: string): Promise<number> {
  let t0 = performance.now();
  // A kept-alive socket the server closed while the fill ran fails once; the call is then made again.
  const res = await fetch(url, { headers }).catch(() => {
    t0 = performance.now();
    return fetch(url, { headers });
  });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${body.slice(0, 300)}`);
  return performance.now() - t0;
}

/**
 * `iterations` sequential calls of each read (after 3 unmeasured ones), p50 and p95 in ms, each call after a call of
 * the bare route, whose p50 and p95 are kept beside the read's.
 */
export async function measureReads(s: Served, reads: Read[], iterations: number): Promise<Record<string, Timing>> {
  const out: Record<string, Timing> = {};
  for (const r of reads) {
    const headers = r.api === 'merchant' ? merchantHeaders(s) : dashboardHeaders(s);
    const times: number[] = [];
    const bare: number[] = [];
    for (let i = -3; i < iterations; i++) {
      const b = await timed(`${s.server.url}/healthz`, {}, 'healthz');
      const t = await timed(`${s.server.url}${r.path(Math.max(i, 0) + 1000)}`, headers, r.name);
      if (i >= 0) {
        times.push(t);
        bare.push(b);
      }
    }
    times.sort((a, b) => a - b);
    bare.sort((a, b) => a - b);
    out[r.name] = {
      p50: percentile(times, 0.5),
      p95: percentile(times, 0.95),
      bareP50: percentile(bare, 0.5),
      bareP95: percentile(bare, 0.95),
    };
  }
  return out;
}

export interface ExportFigures {
  rows: number;
  rowsPerSecond: number;
  /** The process's peak resident set during the export, and before it, in MiB (the server runs in this process). */
  peakRssMiB: number;
  rssBeforeMiB: number;
}

/** Streams each CSV export through the dashboard API and counts its lines. */
export async function measureExports(s: Served): Promise<Record<string, ExportFigures>> {
  const out: Record<string, ExportFigures> = {};
  for (const [name, path] of [
    ['payments', '/v1/dashboard/payments/export'],
    ['ledger', '/v1/dashboard/ledger/export'],
    ['payouts', '/v1/dashboard/payouts/export'],
  ] as const) {
    global.gc?.();
    const before = process.memoryUsage.rss();
    let peak = before;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    const t0 = performance.now();
    const res = await fetch(`${s.server.url}${path}`, { headers: dashboardHeaders(s) }).catch(() =>
      fetch(`${s.server.url}${path}`, { headers: dashboardHeaders(s) }),
    );
    if (res.status !== 200) throw new Error(`export ${name}: ${res.status} ${await res.text()}`);
    let lines = 0;
    const decoder = new TextDecoder();
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
    }
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    const rows = Math.max(0, lines - 1);
    out[name] = {
      rows,
      rowsPerSecond: Math.round(rows / seconds),
      peakRssMiB: Math.round(peak / 2 ** 20),
      rssBeforeMiB: Math.round(before / 2 ** 20),
    };
  }
  return out;
}

/** Creates per second through the merchant API, `concurrency` clients for `seconds`. */
export async function measureCreates(s: Served, seconds: number, concurrency = 16): Promise<number> {
  const headers = { ...merchantHeaders(s), 'Content-Type': 'application/json' };
  const body = JSON.stringify({ amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: 'bench-create' });
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const res = await fetch(`${s.server.url}/v1/merchant/payment`, { method: 'POST', headers, body }).catch(() =>
          fetch(`${s.server.url}/v1/merchant/payment`, { method: 'POST', headers, body }),
        );
        await res.text();
        if (res.status !== 201) throw new Error(`create: ${res.status}`);
        done++;
      }
    }),
  );
  return Math.round(done / seconds);
}

/** The database's size on disk, in bytes. */
export async function databaseBytes(db: Database): Promise<number> {
  if (db.dialect === 'postgres') {
    const r = (await db.knex.raw('select pg_database_size(current_database()) as n')) as { rows: { n: string }[] };
    return Number(r.rows[0]!.n);
  }
  const pages = (await db.knex.raw('pragma page_count')) as { page_count: number }[];
  const size = (await db.knex.raw('pragma page_size')) as { page_size: number }[];
  return pages[0]!.page_count * size[0]!.page_size;
}
