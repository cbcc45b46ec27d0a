/** graphile-worker with a task that does nothing: the baseline job rate for the webhooks benchmark. */
import { run } from 'graphile-worker';

const [connectionString, concurrency] = process.argv.slice(2);
const jobs = Number(concurrency ?? 16);
const runner = await run({
  connectionString: connectionString!,
  concurrency: jobs,
  // The worker's pool rule (server/src/jobs/postgres.ts), so both sides have the same connections.
  maxPoolSize: Math.max(10, jobs),
  noHandleSignals: true,
  pollInterval: 1000,
  taskList: { noop: async () => undefined },
  logger: undefined,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
