/**
 * The Prometheus series of one runtime. Each runtime has its own registry rather than prom-client's global one,
 * so several runtimes in one process (the test suites) never share or clash over a series.
 */
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EndpointHealthReading, Observer } from './observer.js';

export interface Metrics {
  registry: Registry;
  observer: Observer;
  observeHttp(r: { method: string; route: string; status: number; seconds: number }): void;
  /** One authenticated gateway request, by the SDK the wallet declares (`Sdk-Name`, `Sdk-Platform`). */
  observeGatewaySdk(sdk: { name: string | null; platform: string | null }): void;
}

/**
 * A label's values must be a bounded set, and `Sdk-*` headers are whatever clients send: names and platforms outside
 * these lists count as `other`, absent ones as `none`. The full values are in the request log line.
 */
export const KNOWN_SDK_NAMES = ['@paygate/sdk-wallet', '@walletconnect/pay', '@reown/walletkit'];
export const KNOWN_SDK_PLATFORMS = ['web', 'node', 'ios', 'android', 'react-native', 'flutter', 'unity'];

function bounded(value: string | null, known: readonly string[]): string {
  if (value === null) return 'none';
  const lower = value.toLowerCase();
  return known.includes(lower) ? lower : 'other';
}

export interface MetricsOptions {
  logger: Logger;
  /** Jobs by state, read on each scrape (a gauge kept up to date by every add and claim would cost more). */
  queueDepth: () => Promise<Record<string, number>>;
  /** Node's process metrics (CPU, memory, event loop lag); off for the many short-lived runtimes of tests. */
  processMetrics?: boolean;
  /** The Solana fee payers' balances, read on each scrape; absent in a process that serves no Solana chain. */
  feePayerBalances?: () => Promise<{ chain: string; lamports: bigint }[]>;
  /** Each chain's RPC endpoints as chains/rpcPool.ts sees them (labels, never URLs). */
  rpcEndpointHealth?: () => { chain: string; endpoints: EndpointHealthReading[] }[];
}

const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// An attempt gives up after 15 s.
const attemptBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];
// Delivery spans the whole retry schedule, up to about 28 hours.
const deliveryBuckets = [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 7200, 18_000, 36_000, 72_000, 108_000];
const jobBuckets = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60];
const rpcBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.processMetrics) collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: httpBuckets,
    registers,
  });
  const transitions = new Counter({
    name: 'paygate_payment_transitions_total',
    help: 'Committed payment status transitions (from "none" for a creation).',
    labelNames: ['from', 'to', 'mode'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'paygate_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const attemptDuration = new Histogram({
    name: 'paygate_webhook_attempt_duration_seconds',
    help: 'Duration of one webhook delivery attempt (the HTTP request to the endpoint).',
    labelNames: ['outcome'] as const,
    buckets: attemptBuckets,
    registers,
  });
  const deliveryLatency = new Histogram({
    name: 'paygate_webhook_delivery_latency_seconds',
    help: 'From the event to the attempt the endpoint accepted, retries included.',
    buckets: deliveryBuckets,
    registers,
  });
  const jobRuns = new Histogram({
    name: 'paygate_job_run_duration_seconds',
    help: 'Background job runs by task and outcome.',
    labelNames: ['task', 'outcome'] as const,
    buckets: jobBuckets,
    registers,
  });
  new Gauge({
    name: 'paygate_job_queue_depth',
    help: 'Jobs in the queue by state: ready (due, waiting for a worker), running, scheduled (due later), failed (attempts exhausted).',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      this.reset();
      try {
        for (const [state, count] of Object.entries(await options.queueDepth())) this.set({ state }, count);
      } catch (err) {
        // The other series are still worth a scrape; the missing depth and the log line tell the story.
        options.logger.warn({ err }, 'job queue depth unavailable');
      }
    },
  });
  new Gauge({
    name: 'paygate_fee_payer_balance_lamports',
    help: 'The Solana fee payer balance per chain (CAIP-2): every payment transaction spends from it; /readyz fails below 0.01 SOL.',
    labelNames: ['chain'] as const,
    registers,
    async collect() {
      this.reset();
      if (!options.feePayerBalances) return;
      try {
        for (const { chain, lamports } of await options.feePayerBalances()) this.set({ chain }, Number(lamports));
      } catch (err) {
        options.logger.warn({ err }, 'fee payer balance unavailable');
      }
    },
  });
  const rpcDuration = new Histogram({
    name: 'paygate_chain_rpc_duration_seconds',
    help: 'Chain RPC calls by chain (CAIP-2) and method, failed ones included.',
    labelNames: ['chain', 'method'] as const,
    buckets: rpcBuckets,
    registers,
  });
  const rpcErrors = new Counter({
    name: 'paygate_chain_rpc_errors_total',
    help: 'Chain RPC calls that failed (transport error, HTTP error or JSON-RPC error).',
    labelNames: ['chain', 'method'] as const,
    registers,
  });

  const endpointCalls = new Counter({
    name: 'paygate_chain_rpc_endpoint_requests_total',
    help: 'Calls to each RPC endpoint of a chain by outcome: ok, or the kind of failure (timeout, connection, rateLimited, http, malformed, wrongId, rpcError).',
    labelNames: ['chain', 'endpoint', 'outcome'] as const,
    registers,
  });
  const endpointDuration = new Histogram({
    name: 'paygate_chain_rpc_endpoint_duration_seconds',
    help: 'Latency of each RPC endpoint of a chain, failed calls included.',
    labelNames: ['chain', 'endpoint'] as const,
    buckets: rpcBuckets,
    registers,
  });
  const endpointGauge = (name: string, help: string, read: (e: EndpointHealthReading) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain', 'endpoint'] as const,
      registers,
      collect() {
        this.reset();
        for (const { chain, endpoints } of options.rpcEndpointHealth?.() ?? []) {
          for (const e of endpoints) {
            const value = read(e);
            if (value !== null) this.set({ chain, endpoint: e.label }, value);
          }
        }
      },
    });
  endpointGauge(
    'paygate_chain_rpc_endpoint_head_lag',
    "Blocks (EVM) or slots (Solana) an endpoint trails the best head the chain's endpoints report; past the chain's maxHeadLag it is not asked.",
    (e) => (e.lag === null ? null : Number(e.lag)),
  );
  endpointGauge(
    'paygate_chain_rpc_endpoint_breaker_state',
    "Each endpoint's circuit breaker: 0 closed, 1 half-open (one probe allowed), 2 open.",
    (e) => ({ closed: 0, halfOpen: 1, open: 2 })[e.breaker],
  );
  endpointGauge(
    'paygate_chain_rpc_endpoint_available',
    '1 when reads may go to the endpoint (breaker not open, not rate-limited, head in bound); a chain whose endpoints are all 0 is unavailable.',
    (e) => (e.available ? 1 : 0),
  );

  const settlementReorgs = new Counter({
    name: 'paygate_settlement_reorgs_total',
    help: "Transactions that left the chain before finality: a succeeded payment's (gone, reappeared, abandoned) or a deposit's (depositGone before it counted, depositLost after).",
    labelNames: ['chain', 'outcome'] as const,
    registers,
  });
  const settlementMovesFailed = new Counter({
    name: 'paygate_settlement_moves_failed_total',
    help: 'Sweeps, payouts and refunds that ended failed and gave back what they covered: reverted whole, or unsendable after their attempts.',
    labelNames: ['chain', 'kind', 'reason'] as const,
    registers,
  });
  const settlementMovesUnknown = new Counter({
    name: 'paygate_settlement_moves_unknown_total',
    help: "Looks at a sent sweep, payout or refund that can no longer land but whose landing the chain's node cannot tell (its history starts too late); the move waits and is never signed again. Alert on any increase.",
    labelNames: ['chain', 'kind'] as const,
    registers,
  });
  const screenedDeposits = new Counter({
    name: 'paygate_settlement_screened_deposits_total',
    help: 'Transfers to deposit addresses from screened accounts: they pay nothing and are held at the deposit address (a screened_sender discrepancy). Alert on any increase: the operator decides what becomes of the funds.',
    labelNames: ['chain'] as const,
    registers,
  });
  const reconciliationDifference = new Gauge({
    name: 'paygate_reconciliation_difference',
    help: 'Standing shortfalls: money the ledger says an account holds and the chain does not, in minor units of the asset (on chain − ledger, ≤ 0, summed over the accounts of the role: deposit, collection, treasury). 0 when nothing is missing; the one to alert on.',
    labelNames: ['chain', 'asset', 'role'] as const,
    registers,
  });
  const reconciliationSurplus = new Gauge({
    name: 'paygate_reconciliation_surplus',
    help: 'Standing surpluses: money on chain beyond what the ledger knows, in minor units (≥ 0, summed over the accounts of the role). Anyone can send to a public address: a finding, not an alarm (a deposit surplus is an unwatched_deposit discrepancy).',
    labelNames: ['chain', 'asset', 'role'] as const,
    registers,
  });
  const reconciliationPending = new Gauge({
    name: 'paygate_reconciliation_pending_difference',
    help: 'Differences explained for now by money on its way (detection, finality, a move in flight), in minor units; they stand once older than 30 minutes.',
    labelNames: ['chain', 'asset', 'role'] as const,
    registers,
  });
  const reconciliationLastRun = new Gauge({
    name: 'paygate_reconciliation_last_run_timestamp_seconds',
    help: 'When the last reconciliation run of this process finished comparing (Unix seconds).',
    registers,
  });

  const observer: Observer = {
    reconciled({ at, checked, differences }) {
      reconciliationDifference.reset();
      reconciliationSurplus.reset();
      reconciliationPending.reset();
      for (const { chain, asset, role } of checked) {
        reconciliationDifference.set({ chain, asset, role }, 0);
        reconciliationSurplus.set({ chain, asset, role }, 0);
        reconciliationPending.set({ chain, asset, role }, 0);
      }
      // A gauge is a float: an 18-decimal amount loses its last digits here, never its sign or its size; the log line
      // carries the exact value. Shortfalls and surpluses are apart, so that a surplus sent to one address cannot
      // hide a shortfall at another of the same role.
      for (const { chain, asset, role, difference, state } of differences) {
        const gauge =
          state !== 'standing'
            ? reconciliationPending
            : difference < 0n
              ? reconciliationDifference
              : reconciliationSurplus;
        gauge.inc({ chain, asset, role }, Number(difference));
      }
      reconciliationLastRun.set(at / 1000);
    },
    paymentTransition({ from, to, live }) {
      transitions.inc({ from: from ?? 'none', to, mode: live ? 'live' : 'test' });
    },
    webhookAttempt({ outcome, seconds }) {
      attempts.inc({ outcome });
      attemptDuration.observe({ outcome }, seconds);
    },
    webhookDelivered({ seconds }) {
      deliveryLatency.observe(seconds);
    },
    jobRun({ task, outcome, seconds }) {
      jobRuns.observe({ task, outcome }, seconds);
    },
    rpcCall({ chain, method, ok, seconds }) {
      rpcDuration.observe({ chain, method }, seconds);
      if (!ok) rpcErrors.inc({ chain, method });
    },
    rpcEndpointCall({ chain, endpoint, outcome, seconds }) {
      endpointCalls.inc({ chain, endpoint, outcome });
      endpointDuration.observe({ chain, endpoint }, seconds);
    },
    settlementReorg({ chain, outcome }) {
      settlementReorgs.inc({ chain, outcome });
    },
    settlementMoveFailed({ chain, kind, reason }) {
      settlementMovesFailed.inc({ chain, kind, reason });
    },
    settlementMoveUnknown({ chain, kind }) {
      settlementMovesUnknown.inc({ chain, kind });
    },
    screenedDeposit({ chain }) {
      screenedDeposits.inc({ chain });
    },
  };

  const gatewaySdk = new Counter({
    name: 'paygate_gateway_requests_by_sdk_total',
    help: 'Authenticated gateway requests by the declared SDK name and platform (bounded: unknown values count as other).',
    labelNames: ['sdk_name', 'sdk_platform'] as const,
    registers,
  });

  return {
    registry,
    observer,
    observeHttp({ method, route, status, seconds }) {
      http.observe({ method, route, status: String(status) }, seconds);
    },
    observeGatewaySdk({ name, platform }) {
      gatewaySdk.inc({
        sdk_name: bounded(name, KNOWN_SDK_NAMES),
        sdk_platform: bounded(platform, KNOWN_SDK_PLATFORMS),
      });
    },
  };
}
