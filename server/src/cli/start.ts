/** `paygate start` and `paygate migrate`. */
import { parseArgs } from 'node:util';
import { bootstrapDevelopment, type TestCredentials } from '../accounts/bootstrap.js';
import { ensureDemoLogin, type DemoLogin } from '../users/demoLogin.js';
import { openDatabase } from '../db/connect.js';
import { migrateDatabase } from '../db/migrate.js';
import { startServer } from '../server.js';
import { commonOptions, demoLoginText, emit, loadCliConfig, RUNNING, UsageError, type CliIo } from './common.js';

export const startHelp = `Usage: paygate start [--json]

Starts the API and the background jobs with the configuration of the environment. In development, on an empty
embedded (SQLite) database, it first creates a demo partner and merchant and prints their test credentials.
With --json, prints those credentials (when created) as one JSON line, then {"url", "env"} once listening.
`;

export const migrateHelp = `Usage: paygate migrate [--json]

Brings the schema of the database DATABASE_URL names up to date and prints the migrations applied.
`;

function parseCommon(args: string[], help: string) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: commonOptions, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message, help);
  }
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument "${parsed.positionals[0]}"`, help);
  return parsed.values;
}

/**
 * Printed on stdout, never through the logger: log lines are shipped and kept, and a secret in
 * them outlives the terminal it was meant for.
 */
function printTestCredentials(io: CliIo, json: boolean, c: TestCredentials & { dashboard: DemoLogin }): void {
  emit(
    io,
    json,
    c,
    `
Empty development database: created a demo partner and merchant with TEST credentials.

  Partner id        ${c.partnerId}
  Merchant id       ${c.merchantId}
  Merchant API key  ${c.merchantApiKey}
  Wallet API key    ${c.walletApiKey}
  App id            ${c.appId}
${demoLoginText(c.dashboard, '  Dashboard login   ')}
Merchant requests send Api-Key (the merchant key) and Merchant-Id; wallets send Api-Key (the wallet key), or
App-Id with a Client-Id of their choosing; sign in to the dashboard at /dashboard with the demo login. The keys
and the password are shown only once. For live keys:
  paygate admin create-api-key --partner ${c.partnerId} --mode live
`,
  );
}

export async function runStart(args: string[], io: CliIo): Promise<number | typeof RUNNING> {
  const values = parseCommon(args, startHelp);
  if (values.help) {
    io.stdout.write(startHelp);
    return 0;
  }
  const config = loadCliConfig(io);
  const running = await startServer(config, {
    async beforeListen(runtime) {
      const credentials = await bootstrapDevelopment(runtime, config.env);
      if (credentials) {
        const dashboard = await ensureDemoLogin(runtime, credentials.merchantId);
        printTestCredentials(io, values.json, { ...credentials, dashboard });
      }
    },
  });
  if (values.json) io.stdout.write(JSON.stringify({ url: running.url, env: config.env }) + '\n');
  return RUNNING;
}

export async function runMigrate(args: string[], io: CliIo): Promise<number> {
  const values = parseCommon(args, migrateHelp);
  if (values.help) {
    io.stdout.write(migrateHelp);
    return 0;
  }
  const config = loadCliConfig(io);
  const db = openDatabase(config.databaseUrl, { poolMax: 2 });
  let applied: string[];
  try {
    applied = await migrateDatabase(db);
  } finally {
    await db.close();
  }
  emit(
    io,
    values.json,
    { applied },
    applied.length === 0
      ? 'The database is up to date.'
      : `Applied ${applied.length} migration(s): ${applied.join(', ')}`,
  );
  return 0;
}
