import { pino } from 'pino';
import { createRuntime, openDatabase, type Database, type Runtime, type RuntimeOptions } from '@paygate/server';
import { testConfig } from './config.js';

/** A controllable clock: tests move time instead of sleeping. */
export interface TestClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start = Date.UTC(2026, 1, 18, 10, 0, 0)): TestClock {
  let t = start;
  return { now: () => t, set: (ms) => (t = ms), advance: (ms) => (t += ms) };
}

/** A runtime over the given database (an in-memory SQLite one by default), silent, with its own clock. */
export async function testRuntime(
  options: {
    db?: Database;
    clock?: TestClock;
    config?: Record<string, string>;
    signInGate?: RuntimeOptions['signInGate'];
    /** The run's local chains, for a test that needs a chain's assets (none unless given). */
    chains?: RuntimeOptions['chains'];
  } = {},
): Promise<Runtime> {
  const db = options.db ?? openDatabase('sqlite::memory:');
  const runtime = await createRuntime({
    config: testConfig(options.config),
    db,
    logger: pino({ level: 'silent' }),
    now: (options.clock ?? testClock()).now,
    signInGate: options.signInGate,
    ...(options.chains ? { chains: options.chains } : {}),
  });
  if (!options.db) {
    const close = runtime.close;
    runtime.close = async () => {
      await close();
      await db.close();
    };
  }
  return runtime;
}
