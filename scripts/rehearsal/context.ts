/**
 * What a step of the rehearsal (`npm run rehearsal`) gets: the running deployment (PostgreSQL, the proxy, the API and
 * worker processes started from the systemd units' command lines) and the means to act on it as an operator would.
 * Steps live in scripts/rehearsal/steps/*.ts and export `(ctx: RehearsalContext) => Promise<StepRow>`.
 */

export interface RehearsalPostgres {
  /** postgres://… of the database the processes use (also in the `database-url` secret file). */
  url: string;
  /** The directory of PostgreSQL's binaries (pg_dump, pg_restore, initdb, pg_ctl …). */
  bin: string;
  dataDir: string;
  port: number;
  /** pg_ctl stop: `fast` (default) ends sessions and checkpoints; `immediate` is a crash. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
}

export interface RehearsalContext {
  /** The scratch directory of the run: release, etc/ (env file, secrets, chain file), logs, TLS. */
  dir: string;
  /** The production environment the processes run with (the env file's variables and the units' own). */
  env: Record<string, string>;
  pg: RehearsalPostgres;
  /** https://… through the proxy, and the throwaway CA's certificate that clients trust. */
  baseUrl: string;
  ca: string;
  /** The rehearsal merchant's test-mode key; its id is `merchant.id`. */
  merchant: { apiKey: string; id: string };
  /** Restarts every API and worker process, one at a time, with `env` merged over the production environment. */
  restartAll(env?: Record<string, string>): Promise<void>;
  /**
   * Runs an operator's command (a `paygate …` command is given as `paygate` and runs the release's bin with the
   * production environment). Every call is written to `<dir>/commands.log`: OPERATIONS.md's commands are checked
   * against that log. A shell line, `run('sh', ['-c', line])`, is logged as `line`, its variables unexpanded.
   */
  run(
    cmd: string,
    args: string[],
    opts?: { env?: Record<string, string>; input?: string },
  ): Promise<{ stdout: string; stderr: string; code: number }>;
}

/** One row of the rehearsal's table. `failures` and `lost` must be 0 for the step to pass. */
export interface StepRow {
  step: string;
  requests: number;
  failures: number;
  /** Requests the clients repeated (the SDKs' idempotent retries, a refused connection absorbed). */
  retries: number;
  longestPauseMs: number;
  lost: number;
  note?: string;
}

export type Step = (ctx: RehearsalContext) => Promise<StepRow>;
