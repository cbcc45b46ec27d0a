/**
 * The `paygate` command. Each command prints human text by default and one JSON document with `--json`. Exit
 * codes: 0 done, 1 the operation failed (configuration, refused by the domain, database), 2 the command line is
 * wrong. Errors are one line on stderr, so a supervisor's log keeps each of them whole.
 */
import { UsageError } from './cli/common.js';
import { ApiError } from './errors.js';

const usage = `Usage: paygate <command> [options]

Commands:
  start          Start the API and the background jobs
  worker         Run only the background jobs (PostgreSQL; scale out with several)
  migrate        Bring the database schema up to date
  admin          Partners, merchants and keys (paygate admin --help)

Options:
  --json         Print machine-readable JSON
  -h, --help     Show help (also after a command)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required', usage);
    case '-h':
    case '--help':
      process.stdout.write(usage);
      return 0;
    // Each command loads only its own modules: help and usage errors answer at once, admin never loads the chains.
    case 'start':
      return (await import('./cli/server.js')).runStart(rest);
    case 'migrate':
      return (await import('./cli/server.js')).runMigrate(rest);
    case 'worker':
      return (await import('./cli/worker.js')).runWorker(rest);
    case 'admin':
      return (await import('./cli/admin.js')).runAdmin(rest);
    default:
      throw new UsageError(`unknown command "${command}"`, usage);
  }
}

function helpCommand(help: string): string {
  return `${/^Usage: (paygate(?: [a-z][a-z-]*)*)/.exec(help)?.[1] ?? 'paygate'} --help`;
}

try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`paygate: ${err.message} (see "${helpCommand(err.help)}")\n`);
    process.exit(2);
  }
  // The code lets a script tell "partner_not_found" from "merchant_exists" without parsing prose.
  const message =
    err instanceof ApiError
      ? `${err.message.replace(/\.$/, '')} (${err.code})`
      : err instanceof Error
        ? err.message
        : String(err);
  process.stderr.write(`paygate: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  process.exit(1);
}
