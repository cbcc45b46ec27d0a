/**
 * Mocha global fixtures: one throwaway PostgreSQL per run, unless DATABASE_URL names one; and the run's local chains
 * (anvil and the LiteSVM-backed Solana RPC), which test/helpers/chain.ts starts once, on first use.
 */
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
}

export async function mochaGlobalTeardown(): Promise<void> {
  pg?.stop();
  await stopSharedChains();
}
