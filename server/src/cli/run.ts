/**
 * The `paygate` command as a function: the bin (`cli.ts`) hands it the process's streams and environment, tests call
 * it in-process with their own. Each command prints human text by default and one JSON document with `--json`. Exit
 * codes: 0 done, 1 the operation failed (configuration, refused by the domain, database), 2 the command line is
 * wrong. Errors are one line on stderr, so a supervisor's log keeps each of them whole.
 */
import { ApiError } from '../errors.js';
import { UsageError, type CliIo, type RUNNING } from './common.js';

export { RUNNING, type CliIo, type Output } from './common.js';

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

async function dispatch(argv: string[], io: CliIo): Promise<number | typeof RUNNING> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required', usage);
    case '-h':
    case '--help':
      io.stdout.write(usage);
      return 0;
    // Each command loads only its own modules: help and usage errors answer at once, admin never loads the chains.
    case 'start':
      return (await import('./start.js')).runStart(rest, io);
    case 'migrate':
      return (await import('./start.js')).runMigrate(rest, io);
    case 'worker':
      return (await import('./worker.js')).runWorker(rest, io);
    case 'admin':
      return (await import('./admin.js')).runAdmin(rest, io);
    default:
      throw new UsageError(`unknown command "${command}"`, usage);
  }
}

function helpCommand(help: string): string {
  return `${/^Usage: (paygate(?: [a-z][a-z-]*)*)/.exec(help)?.[1] ?? 'paygate'} --help`;
}

/** Runs one command line to its exit code; every failure is reported on `io.stderr`, never thrown. */
export async function runCli(argv: string[], io: CliIo): Promise<number | typeof RUNNING> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`paygate: ${err.message} (see "${helpCommand(err.help)}")\n`);
      return 2;
    }
    // The code lets a script tell "partner_not_found" from "merchant_exists" without parsing prose.
    const message =
      err instanceof ApiError
        ? `${err.message.replace(/\.$/, '')} (${err.code})`
        : err instanceof Error
          ? err.message
          : String(err);
    io.stderr.write(`paygate: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}
