/**
 * The `paygate` command. Each command prints human text by default and one JSON document with `--json`.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

const usage = `Usage: paygate <command> [options]

Commands:
  start          Start the API (and, in later releases, the background jobs)

Options:
  --json         Print machine-readable JSON
  -h, --help     Show this help
`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const [command] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(usage);
    return command === undefined && !values.help ? 2 : 0;
  }
  switch (command) {
    case 'start': {
      const config = loadConfig();
      const running = await startServer(config);
      if (values.json) {
        process.stdout.write(JSON.stringify({ url: running.url, env: config.env }) + '\n');
      }
      return -1; // keep running
    }
    default:
      process.stderr.write(`paygate: unknown command "${command}"\n\n${usage}`);
      return 2;
  }
}

try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    // One clear line: a person reads it, and a supervisor's log keeps it whole.
    process.stderr.write(`paygate: ${(err as Error).message}\n`);
    process.exit(1);
  }
  throw err;
}
