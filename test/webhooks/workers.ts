/**
 * Real `paygate worker` processes on a PostgreSQL database of their own, beside an in-process runtime that creates
 * the payments, and a receiver the endpoint points at: the fixture of the multi-process delivery tests.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { createRuntime, loadConfig, type Runtime } from '@paygate/server';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { spawnCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

export interface WorkerFixture {
  test: TestDatabase;
  runtime: Runtime;
  receiver: Receiver;
  merchantId: string;
  /** The test endpoint's signing secret. */
  secret: string;
  /** Starts a worker with these extra arguments; resolves once it takes jobs. Killed after the test. */
  startWorker(args?: string[]): Promise<ChildProcess>;
  newPayment(referenceId: string): ReturnType<typeof createPayment>;
}

/** Registers hooks that set the fixture up before each test (`each`) or once for the file, and tear it down. */
export function useWorkerFixture({ each }: { each: boolean }): WorkerFixture {
  const fixture = {} as WorkerFixture;
  const workers: ChildProcess[] = [];
  const env: Record<string, string> = {
    PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
    PAYGATE_OPTION_SECRET: randomBytes(32).toString('base64'),
  };
  (each ? beforeEach : before)(async () => {
    fixture.test = await createTestDatabase('postgres');
    env.DATABASE_URL = fixture.test.url;
    fixture.runtime = await createRuntime({
      config: loadConfig({ ...env, LOG_LEVEL: 'silent' }),
      db: fixture.test.db,
      logger: pino({ level: 'silent' }),
    });
    fixture.receiver = await startReceiver();
    fixture.merchantId = await seedMerchant(fixture.test.db.knex);
    ({ secret: fixture.secret } = await createEndpoint(fixture.runtime, fixture.merchantId, 'test', {
      url: `${fixture.receiver.url}/hooks`,
    }));
  });
  (each ? afterEach : after)(async () => {
    for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
    await fixture.receiver?.close();
    await fixture.runtime?.close();
    await fixture.test?.drop();
  });
  fixture.startWorker = async (args = []) => {
    const child = spawnCli(['worker', '--json', ...args], env);
    workers.push(child);
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
    });
    assert.equal(JSON.parse(line).worker, 'ready');
    return child;
  };
  fixture.newPayment = (referenceId) =>
    createPayment(fixture.runtime, {
      merchantId: fixture.merchantId,
      live: false,
      referenceId,
      amount: { unit: 'iso4217/USD', value: '1250' },
      expiresAt: Date.now() + 3_600_000,
      successUrl: null,
      errorUrl: null,
    });
  return fixture;
}
