/** graphile-worker with a task that does nothing: the baseline job rate for the webhooks benchmark. */
import { run } from 'graphile-worker';

const [connectionString, concurrency] = process.argv.slice(2);
const runner = await run({
  connectionString: connectionString!,
  concurrency: Number(concurrency ?? 4),
  noHandleSignals: true,
  pollInterval: 1000,
  taskList: { noop: async () => undefined },
  logger: undefined,
});
process.stdout.write('ready\n');
process.on('SIGTERM', () => void runner.stop().then(() => process.exit(0)));
