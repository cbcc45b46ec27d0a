/** The `paygate` bin: the CLI (cli/run.ts) on this process's streams and environment. */
import { RUNNING, runCli } from './cli/run.js';

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
if (code !== RUNNING) process.exit(code);
