/**
 * Everything a process needs, built once from the configuration: database, job queue, clock, logger, and the
 * dependencies of the domain modules. Tests build one with their own clock and database (CONVENTIONS.md §12).
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { withDevelopmentSecrets, type Config } from './config.js';
import { SecretBox } from './crypto/secretBox.js';
import { openDatabase, type Database } from './db/connect.js';
import { migrateDatabase } from './db/migrate.js';
import { createPostgresQueue } from './jobs/postgres.js';
import { createSqliteQueue } from './jobs/sqlite.js';
import type { JobQueue, TaskList } from './jobs/types.js';
import type { EventHook } from './payments/lifecycle.js';
import { paymentTasks, sweepExpiredPayments } from './payments/tasks.js';
import { deliveryHook, sweepDeliveries, webhookTasks } from './webhooks/delivery.js';
import type { WebhookDeps, WebhookOptions } from './webhooks/deps.js';
import { ATTEMPT_TIMEOUT_MS } from './webhooks/schedule.js';

export type ResolvedConfig = ReturnType<typeof withDevelopmentSecrets>;

export interface Runtime extends WebhookDeps {
  config: ResolvedConfig;
  db: Database;
  jobs: JobQueue;
  now: () => number;
  logger: Logger;
  eventHooks: EventHook[];
  secretBox: SecretBox;
  webhookOptions: WebhookOptions;
  /** Runs every sweeper once (tests call it after moving the clock). */
  sweep(): Promise<void>;
  /** Starts the job runner and the periodic sweepers: the work of `paygate start` and `paygate worker`. */
  startBackground(): Promise<void>;
  close(): Promise<void>;
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
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const config = withDevelopmentSecrets(options.config);
  const logger = options.logger ?? pino({ level: config.logLevel });
  const now = options.now ?? Date.now;
  const db = options.db ?? openDatabase(config.databaseUrl);
  const ownsDb = options.db === undefined;
  if (options.migrate ?? true) await migrateDatabase(db);

  const tasks: TaskList = {};
  const runtime = {
    config,
    db,
    now,
    logger,
    eventHooks: [] as EventHook[],
    secretBox: new SecretBox(config.encryptionKeys),
    webhookOptions: { attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, ...options.webhookOptions },
  } as unknown as Runtime;
  const queueOptions = { tasks, logger, now, pollIntervalMs: options.jobPollIntervalMs };
  runtime.jobs =
    db.dialect === 'postgres'
      ? createPostgresQueue({ ...queueOptions, db, concurrency: options.jobConcurrency })
      : createSqliteQueue({ ...queueOptions, knex: db.knex });
  Object.assign(tasks, paymentTasks(runtime), webhookTasks(runtime));
  runtime.eventHooks.push(deliveryHook(runtime));

  runtime.sweep = async () => {
    await sweepExpiredPayments(runtime);
    await sweepDeliveries(runtime);
  };
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> = Promise.resolve();
  runtime.startBackground = async () => {
    await runtime.jobs.start();
    const interval = options.sweepIntervalMs ?? 10_000;
    sweeper = setInterval(() => {
      sweeping = sweeping.then(runtime.sweep).catch((err: unknown) => logger.error({ err }, 'sweep failed'));
    }, interval);
    sweeper.unref();
  };
  runtime.close = async () => {
    if (sweeper) clearInterval(sweeper);
    await sweeping;
    await runtime.jobs.stop();
    if (ownsDb) await db.close();
  };
  return runtime;
}
