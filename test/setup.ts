/**
 * Mocha global fixtures: one throwaway PostgreSQL per run, unless DATABASE_URL names one; and the run's local chains
 * (anvil and the LiteSVM-backed Solana RPC), which test/helpers/chain.ts starts once, on first use; and a fresh build
 * of the web pages (web/dist), which the checkout tests load in Chromium.
 */
import { execFileSync } from 'node:child_process';
import { stopSharedChains } from './helpers/chain.js';
import { prepareTemplate } from './helpers/db.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from './helpers/postgres.js';

let pg: ThrowawayPostgres | null = null;

export async function mochaGlobalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    process.env.PAYGATE_TEST_POSTGRES_URL = process.env.DATABASE_URL;
  } else {
    pg = await startThrowawayPostgres();
    process.env.PAYGATE_TEST_POSTGRES_URL = pg.url;
  }
  await prepareTemplate(process.env.PAYGATE_TEST_POSTGRES_URL);
  // The checkout tests drive the built page: build it from the sources under test, not from whenever it last was.
  execFileSync('npm', ['run', '--silent', 'build', '-w', '@paygate/web'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function mochaGlobalTeardown(): Promise<void> {
  pg?.stop();
  await stopSharedChains();
}
