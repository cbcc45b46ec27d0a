/**
 * Everything a process needs, built once from the configuration: database, job queue, clock, logger, and the
 * dependencies of the domain modules. Tests build one with their own clock and database (CONVENTIONS.md §12).
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import {
  allChains,
  chainReadinessChecks,
  feePayerBalances,
  isEndpointFailure,
  rpcEndpointHealth,
  LOCAL_BLOCK_TIME_MS,
  startChains,
  type Chains,
} from './chains/index.js';
import { TRUST_EVERY_HOP, withDevelopmentSecrets, type Config } from './config.js';
import { SecretBox } from './crypto/secretBox.js';
import { openDatabase, type Database } from './db/connect.js';
import { describeDatabaseFailure } from './db/failure.js';
import { migrateDatabase, migrationsCurrent } from './db/migrate.js';
import { createStatusReads, type StatusReads } from './db/queries/paymentStatus.js';
import { queueDepth } from './db/queries/queueDepth.js';
import { openJobQueue } from './jobs/queue.js';
import type { JobQueue, Task, TaskList } from './jobs/types.js';
import { createMerchantKeys, type MerchantKeys } from './http/merchantAuth.js';
import { merchantKeyRateLimit } from './http/rateLimit.js';
import { createLogger } from './observability/logger.js';
import { createMetrics, type Metrics } from './observability/metrics.js';
import type { Observer } from './observability/observer.js';
import type { ReadinessCheck } from './observability/readiness.js';
import { paymentCreates, type EventHook } from './payments/lifecycle.js';
import { KeyPurgeSchedule } from './payments/idempotency.js';
import { PaymentNotifier } from './payments/paymentWatch.js';
import { paymentTasks, sweepExpiredPayments } from './payments/tasks.js';
import { loadStaticRates, pricedCurrenciesOf, type PricedCurrencies } from './quotes/index.js';
import { createReconciler, type Reconciler } from './settlement/reconciliation.js';
import { checkDepositSeed } from './settlement/seedGuard.js';
import { createCheckout, type Checkout, type CheckoutOptions } from './checkout/context.js';
import { checkoutTasks } from './checkout/claimTasks.js';
import { askedAmount, detectionTasks, enqueueDepositScans } from './settlement/collected/detection.js';
import { directSettlementTasks } from './settlement/direct/settleDirect.js';
import { settlementHook } from './settlement/modes.js';
import { settlementTasks, startSettlementSchedule } from './settlement/settlementTasks.js';
import { expireRefundClaims } from './settlement/refunds.js';
import { deliveryHook, recoverExpiredLeases, sweepDeliveries, webhookTasks } from './webhooks/delivery.js';
import { invoiceEventHook } from './invoices/invoiceEvents.js';
import { partialPaymentEndHook, sendPartiallyPaid } from './webhooks/partialPayment.js';
import type { WebhookDeps, WebhookOptions } from './webhooks/deliveryDeps.js';
import { createDeliveryParts } from './webhooks/deliveryParts.js';
import { enqueueRetention, RETENTION_INTERVAL_MS, retentionTasks } from './webhooks/retention.js';
import { ATTEMPT_TIMEOUT_MS, LEASE_MS, LEASE_RENEW_MS, LEASE_SWEEP_MS } from './webhooks/schedule.js';
import { ServerKeys } from './users/serverKeys.js';
import { createSignInGate, type SignInGate, type SignInGateOptions } from './users/signInGate.js';
import type { SecurityEventSink } from './users/usersDeps.js';
import { securityEventLog } from './audit/securityEvents.js';

export type ResolvedConfig = ReturnType<typeof withDevelopmentSecrets>;

export interface Runtime extends WebhookDeps {
  config: ResolvedConfig;
  /** Combined status reads (db/queries/paymentStatus.ts). */
  statusReads: StatusReads;
  /** When expired idempotency keys were last purged (payments/idempotency.ts). */
  keyPurges: KeyPurgeSchedule;
  /** The merchant keys' credential cache and last-use writes (http/merchantAuth.ts). */
  merchantKeys: MerchantKeys;
  /** The per-key rate limit every router of merchant keys shares (http/rateLimit.ts). */
  merchantKeyLimit: RequestHandler;
  /** Keys derived from the first encryption key (users/serverKeys.ts). */
  serverKeys: ServerKeys;
  /** Wakes this process's long polls when a payment changes (payments/paymentWatch.ts); one of the event hooks. */
  paymentNotifier: PaymentNotifier;
  db: Database;
  jobs: JobQueue;
  now: () => number;
  logger: Logger;
  eventHooks: EventHook[];
  secretBox: SecretBox;
  webhookOptions: WebhookOptions;
  metrics: Metrics;
  observer: Observer;
  /** What /readyz checks; chain adapters add one per configured chain. */
  readiness: ReadinessCheck[];
  /** The chains the gateway serves; null in processes that touch no chain (CLI tools, the worker for now). */
  chains: Chains | null;
  /** Security events of people, into their merchants' audit logs (audit/securityEvents.ts). */
  securityEvents: SecurityEventSink;
  /** The currencies a payment of each mode may be created in (quotes/pricedCurrencies.ts). */
  pricedCurrencies: PricedCurrencies;
  /** Options, fetch, confirm and their jobs; null in a process that serves no chain. */
  checkout: Checkout | null;
  /** Ledger against chains (settlement/reconciliation.ts); null where no chain offers collected settlement. */
  reconciler: Reconciler | null;
  /** See LifecycleDeps.expiryGraceMs: PAYGATE_LATE_CONFIRM_GRACE_S. */
  expiryGraceMs: number;
  /** This process's bound on concurrent password checks (users/signInGate.ts). */
  signInGate: SignInGate;
  /** Aborted when a shutdown's deadline passes: long work (a webhook attempt) stops and records itself. */
  shutdownSignal: AbortSignal;
  /** Runs every sweeper once (tests call it after moving the clock). */
  sweep(): Promise<void>;
  /** Starts the job runner and the periodic sweepers: the work of `paygate start` and `paygate worker`. */
  startBackground(): Promise<void>;
  /**
   * Stops taking jobs and waits for the running ones, up to `deadlineMs`; then aborts `shutdownSignal` and waits
   * a little more for them to record what they did. The first call decides the deadline; later calls join it.
   */
  stopBackground(deadlineMs?: number): Promise<void>;
  /** stopBackground() (without a deadline unless one was given before), then closes the pools this runtime opened. */
  close(): Promise<void>;
}

/** After the deadline, interrupted jobs get this long to record their attempt before the pools close. */
export const ABORT_GRACE_MS = 2000;

/** Whether `work` settles within `ms`. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Infinity) {
    await work;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  now?: () => number;
  /** An already open database (tests); otherwise the one `DATABASE_URL` names. */
  db?: Database;
  migrate?: boolean;
  jobPollIntervalMs?: number;
  /** How often sweepers look for overdue work (expired payments, deliveries whose worker died). */
  sweepIntervalMs?: number;
  webhookOptions?: Partial<WebhookOptions>;
  jobConcurrency?: number;
  /** Node process metrics (CPU, memory, event loop) in the registry: for the long-lived processes only. */
  processMetrics?: boolean;
  /**
   * Running chains to use (tests share one local chain per run), or `start` to start or connect to the ones
   * PAYGATE_CHAINS names, closed with the runtime (`paygate start`). Without it the runtime has no chains.
   */
  chains?: Chains | 'start';
  /**
   * With `chains: 'start'` and PAYGATE_CHAINS=local: the local EVM chain mines an empty block this often (ms), so a
   * quiet chain still finalizes; LOCAL_BLOCK_TIME_MS by default.
   */
  localBlockTimeMs?: number;
  /** Checkout tuning for tests: balance cache, settle timings, a fixed pricing. */
  checkout?: CheckoutOptions;
  /** Password-check limits and the check itself (tests count and hold checks); the defaults otherwise. */
  signInGate?: Partial<SignInGateOptions>;
  /**
   * Refuse to start when PAYGATE_DEPOSIT_SEED is not the seed the database was first started with
   * (settlement/seedGuard.ts). On by default when the runtime opens its own database (`paygate start`, `paygate
   * worker`); a caller passing an open database (tests, whose every configuration has a fresh seed) opts in.
   */
  checkDepositSeed?: boolean;
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const config = withDevelopmentSecrets(options.config);
  const logger = options.logger ?? createLogger(config);
  const now = options.now ?? Date.now;
  const db = options.db ?? openDatabase(config.databaseUrl, { logger, backgroundCheckpoints: true });
  const ownsDb = options.db === undefined;
  if (options.migrate ?? true) {
    try {
      await migrateDatabase(db);
    } catch (err) {
      if (ownsDb) await db.close().catch(() => undefined);
      throw describeDatabaseFailure(db.url, err);
    }
  }
  // Production refuses it (config.ts); elsewhere it may be a tunnel's convenience, but never silently.
  if (config.trustProxy === true)
    logger.warn({ variable: 'PAYGATE_TRUST_PROXY' }, `PAYGATE_TRUST_PROXY is true: ${TRUST_EVERY_HOP}`);
  const seed = config.settlement.depositSeed;
  if (seed !== null && (options.checkDepositSeed ?? ownsDb)) {
    try {
      await checkDepositSeed(db, seed, now());
    } catch (err) {
      if (ownsDb) await db.close().catch(() => undefined);
      throw err;
    }
  }
  // The chains start after the metrics (they report their RPC calls to them), so the gauge reads them late.
  let chainsForMetrics: Chains | null = null;
  const metrics = createMetrics({
    logger,
    queueDepth: async () => ({ ...(await queueDepth(db, now())) }),
    processMetrics: options.processMetrics,
    feePayerBalances: async () => (chainsForMetrics ? feePayerBalances(chainsForMetrics) : []),
    rpcEndpointHealth: () => (chainsForMetrics ? rpcEndpointHealth(chainsForMetrics) : []),
  });
  const shutdown = new AbortController();
  let chains: Chains | null = null;
  try {
    chains =
      options.chains === 'start'
        ? await startChains(config, {
            logger,
            observer: metrics.observer,
            localBlockTimeMs: options.localBlockTimeMs ?? LOCAL_BLOCK_TIME_MS,
          })
        : (options.chains ?? null);
  } catch (err) {
    if (ownsDb) await db.close().catch(() => undefined);
    throw err;
  }
  const ownsChains = options.chains === 'start';
  chainsForMetrics = chains;

  // A lease given alone (`paygate worker --lease-ms`) brings its renewal and its sweep along, in the same proportions.
  const leaseMs = options.webhookOptions?.leaseMs ?? LEASE_MS;
  const webhookOptions: WebhookOptions = {
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    leaseMs,
    renewIntervalMs: Math.round((leaseMs * LEASE_RENEW_MS) / LEASE_MS),
    leaseSweepIntervalMs: Math.round((leaseMs * LEASE_SWEEP_MS) / LEASE_MS),
    ...options.webhookOptions,
  };
  const tasks: TaskList = {};
  const secretBox = new SecretBox(config.encryptionKeys);
  const eventHooks: EventHook[] = [];
  const runtime = {
    config,
    db,
    now,
    logger,
    eventHooks,
    secretBox,
    webhookOptions,
    metrics,
    observer: metrics.observer,
    shutdownSignal: shutdown.signal,
    signInGate: createSignInGate(options.signInGate),
    chains,
    pricedCurrencies: pricedCurrenciesOf(chains ? allChains(chains) : [], loadStaticRates(config.ratesFile)),
    expiryGraceMs: config.lateConfirmGraceMs,
    readiness: [
      {
        name: 'database',
        check: async () => {
          await db.knex.raw('SELECT 1');
        },
      },
      {
        name: 'migrations',
        check: async () => {
          if (!(await migrationsCurrent(db))) throw new Error('the database schema is behind: run paygate migrate');
        },
      },
      ...(chains ? chainReadinessChecks(chains) : []),
    ],
  } as unknown as Runtime;
  wirePerRuntime(runtime);
  runtime.securityEvents = securityEventLog(runtime);
  runtime.jobs = openJobQueue(db, {
    tasks,
    logger,
    now,
    pollIntervalMs: options.jobPollIntervalMs,
    concurrency: options.jobConcurrency,
    isOutage: isEndpointFailure,
  });
  Object.assign(
    tasks,
    timed(runtime.observer, { ...paymentTasks(runtime), ...webhookTasks(runtime), ...retentionTasks(runtime) }),
  );
  runtime.checkout = createCheckout(runtime, options.checkout);
  if (runtime.checkout) {
    runtime.checkout.partialArrivals = (trx, arrival) => sendPartiallyPaid(runtime, trx, arrival);
    Object.assign(tasks, timed(runtime.observer, checkoutTasks(runtime.checkout)));
    Object.assign(
      tasks,
      timed(runtime.observer, directSettlementTasks({ ...runtime.checkout, observer: runtime.observer })),
    );
    Object.assign(tasks, timed(runtime.observer, detectionTasks(runtime.checkout)));
    Object.assign(tasks, timed(runtime.observer, settlementTasks(runtime.checkout)));
  }
  runtime.eventHooks.push(deliveryHook(runtime), settlementHook(runtime), runtime.paymentNotifier.hook);
  // Invoice events (docs/decisions.md §30.12), after the payment's own delivery.
  runtime.eventHooks.push(invoiceEventHook(runtime));
  // Partly paid collected payments (docs/decisions.md §26.26), opt-in like the invoice events.
  const checkout = runtime.checkout;
  if (checkout) {
    runtime.eventHooks.push(
      partialPaymentEndHook(runtime, async (payment, chain, asset) => {
        return (await askedAmount(checkout, payment, chain, asset))?.amount ?? null;
      }),
    );
  }
  runtime.reconciler =
    runtime.checkout && runtime.checkout.adapters.some((a) => a.settlement)
      ? createReconciler({
          db,
          chains: runtime.checkout.chains,
          adapters: runtime.checkout.adapters,
          settlement: config.settlement,
          development: config.env === 'development',
          now,
          logger,
          observer: runtime.observer,
        })
      : null;
  if (runtime.reconciler) runtime.readiness.push(runtime.reconciler.readiness);

  runtime.sweep = async () => {
    await sweepExpiredPayments(runtime);
    await expireRefundClaims(runtime);
    await sweepDeliveries(runtime);
  };
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();
  let leaseSweeper: NodeJS.Timeout | null = null;
  let leaseSweep: Promise<void> | null = null;
  let stopSettlement: () => Promise<void> = async () => undefined;
  let depositScanner: NodeJS.Timeout | null = null;
  let retentionTimer: NodeJS.Timeout | null = null;
  let reconcileTimer: NodeJS.Timeout | null = null;
  let reconciling: Promise<unknown> = Promise.resolve();
  runtime.startBackground = async () => {
    await runtime.jobs.start();
    // A timer, not a job: the result serves this process's /readyz (reconciliation.ts), and a read-only comparison
    // needs no queue's crash safety. The first run waits one interval, so short-lived processes make no RPC load.
    const reconciler = runtime.reconciler;
    if (reconciler) {
      reconcileTimer = setInterval(() => {
        reconciling = reconciling
          .then(() => reconciler.run())
          .catch((err: unknown) => logger.error({ err }, 'reconciliation failed'));
      }, config.settlement.reconcileIntervalMs);
      reconcileTimer.unref();
    }
    if (runtime.checkout) stopSettlement = startSettlementSchedule(runtime.checkout);
    const interval = options.sweepIntervalMs ?? 10_000;
    sweeper = setInterval(() => {
      sweeping = sweeping.then(runtime.sweep).catch((err: unknown) => logger.error({ err }, 'sweep failed'));
    }, interval);
    sweeper.unref();
    // Passed leases (a dead worker's attempts) are looked for far more often than the rest: the recovery time is a
    // lease plus this interval (schedule.ts, Leases). One query on the due index; a sweep still running is not doubled.
    leaseSweeper = setInterval(() => {
      leaseSweep ??= recoverExpiredLeases(runtime)
        .then(
          () => undefined,
          (err: unknown) => logger.error({ err }, 'lease sweep failed'),
        )
        .finally(() => (leaseSweep = null));
    }, runtime.webhookOptions.leaseSweepIntervalMs);
    leaseSweeper.unref();
    // Webhook retention runs as a job (one job key however many processes queue it), in small batches.
    retentionTimer = setInterval(() => {
      enqueueRetention(runtime).catch((err: unknown) => logger.error({ err }, 'webhook retention enqueue failed'));
    }, RETENTION_INTERVAL_MS);
    retentionTimer.unref();
    // Deposit scans run as jobs, one queued per chain (its job key) however many processes run this timer.
    const checkout = runtime.checkout;
    if (checkout) {
      depositScanner = setInterval(() => {
        enqueueDepositScans(checkout).catch((err: unknown) => logger.error({ err }, 'deposit scan enqueue failed'));
      }, config.settlement.scanIntervalMs);
      depositScanner.unref();
    }
  };
  let stopping: Promise<void> | null = null;
  runtime.stopBackground = (deadlineMs = Infinity) =>
    (stopping ??= (async () => {
      if (sweeper) clearInterval(sweeper);
      if (leaseSweeper) clearInterval(leaseSweeper);
      if (depositScanner) clearInterval(depositScanner);
      if (retentionTimer) clearInterval(retentionTimer);
      if (reconcileTimer) clearInterval(reconcileTimer);
      const work = Promise.all([sweeping, leaseSweep, reconciling, stopSettlement()]).then(() => runtime.jobs.stop());
      if (await settlesWithin(work, deadlineMs)) return;
      logger.warn({ deadlineMs }, 'shutdown deadline passed; interrupting running jobs');
      shutdown.abort();
      if (!(await settlesWithin(work, ABORT_GRACE_MS))) logger.error('jobs still running after the interruption');
    })());
  let closing: Promise<void> | null = null;
  runtime.close = () =>
    (closing ??= (async () => {
      await runtime.stopBackground();
      if (ownsDb) await db.close();
      if (ownsChains) await chains?.close();
    })());
  return runtime;
}

/**
 * The objects a runtime keeps for its life, each handed to the modules that use it through their deps, never kept
 * in a module: caches, combiners and batchers belong to one runtime, so two runtimes in one process (tests) share
 * none of them.
 */
function wirePerRuntime(runtime: Runtime): void {
  const knex = runtime.db.knex;
  runtime.creates = paymentCreates(runtime);
  runtime.statusReads = createStatusReads(knex);
  runtime.keyPurges = new KeyPurgeSchedule();
  runtime.merchantKeys = createMerchantKeys(runtime.config, runtime.now);
  runtime.merchantKeyLimit = merchantKeyRateLimit({ ...runtime.config.rateLimit, now: runtime.now });
  runtime.paymentNotifier = new PaymentNotifier();
  runtime.serverKeys = new ServerKeys(runtime.config.encryptionKeys);
  runtime.deliveryParts = createDeliveryParts(knex, runtime.secretBox);
}

/** Times every run of every task, whichever engine runs it. */
function timed(observer: Observer, tasks: TaskList): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, task]): [string, Task] => [
      name,
      async (payload, ctx) => {
        const started = performance.now();
        let outcome: 'completed' | 'failed' = 'failed';
        try {
          await task(payload, ctx);
          outcome = 'completed';
        } finally {
          observer.jobRun({ task: name, outcome, seconds: (performance.now() - started) / 1000 });
        }
      },
    ]),
  );
}
