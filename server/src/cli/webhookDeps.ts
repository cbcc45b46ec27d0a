/**
 * What `paygate admin webhook-endpoint` needs, and no more: the database, a job queue to add deliveries to (a
 * running `paygate start` or `paygate worker` sends them), the secret box. Not the runtime: that would load the
 * chains, the checkout and the metrics, seconds of start-up for a command that touches none of them.
 */
import { pino } from 'pino';
import { withDevelopmentSecrets } from '../config.js';
import { SecretBox } from '../crypto/secretBox.js';
import { openDatabase, type Database } from '../db/connect.js';
import { describeDatabaseFailure } from '../db/failure.js';
import { migrateDatabase } from '../db/migrate.js';
import { openJobQueue } from '../jobs/queue.js';
import { paymentCreates, type EventHook } from '../payments/lifecycle.js';
import { deliveryHook } from '../webhooks/delivery.js';
import { createDeliveryParts } from '../webhooks/deliveryParts.js';
import type { WebhookDeps } from '../webhooks/deliveryDeps.js';
import { ATTEMPT_TIMEOUT_MS, LEASE_MS, LEASE_RENEW_MS, LEASE_SWEEP_MS } from '../webhooks/schedule.js';
import { loadCliConfig, type CliIo } from './common.js';

export interface CliWebhookDeps extends WebhookDeps {
  db: Database;
}

/** Opens the database `DATABASE_URL` names, brings its schema up to date, and always closes it afterwards. */
export async function withWebhookDeps<T>(io: CliIo, work: (deps: CliWebhookDeps) => Promise<T>): Promise<T> {
  const config = withDevelopmentSecrets(loadCliConfig(io));
  // Logs go to stderr: stdout carries the answer, one JSON document with --json.
  const logger = pino({ level: config.logLevel }, io.stderr);
  const db = openDatabase(config.databaseUrl, { logger });
  try {
    try {
      await migrateDatabase(db);
    } catch (err) {
      throw describeDatabaseFailure(db.url, err);
    }
    const now = Date.now;
    // No tasks: this process only adds jobs, inside the transactions of its changes.
    const jobs = openJobQueue(db, { tasks: {}, logger, now });
    const secretBox = new SecretBox(config.encryptionKeys);
    const lifecycle = { db, jobs, now, logger, secretBox, eventHooks: [] as EventHook[] };
    const deps: CliWebhookDeps = {
      ...lifecycle,
      creates: paymentCreates(lifecycle),
      deliveryParts: createDeliveryParts(db.knex, secretBox),
      config,
      secretBox,
      webhookOptions: {
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        leaseMs: LEASE_MS,
        renewIntervalMs: LEASE_RENEW_MS,
        leaseSweepIntervalMs: LEASE_SWEEP_MS,
      },
    };
    // As in the runtime: an event a command causes is delivered like any other.
    deps.eventHooks.push(deliveryHook(deps));
    return await work(deps);
  } finally {
    await db.close();
  }
}
