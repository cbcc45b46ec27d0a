/**
 * The chaos run's processes: real `paygate start` (API) and `paygate worker` children over one PostgreSQL, killed with
 * SIGKILL and started again. A kill is the crash the issue asks for: no shutdown hook runs, leases and open
 * transactions are left as a power cut leaves them.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { spawnCli } from '../../test/helpers/cli.js';
import { cliBundle } from '../../test/helpers/cliBundle.js';

export interface ChaosProcess {
  name: string;
  kind: 'api' | 'worker';
  child: ChildProcess | null;
  /** The API's base URL while it serves; null for a worker or a dead API. */
  url: string | null;
  starts: number;
  /** The error lines it logged (pino level ≥ 50), as `msg: err.message`, counted. */
  errors?: Map<string, number>;
}

/** How long a child may take to say it is ready on a loaded machine. */
const READY_MS = 180_000;

export async function startProcess(p: ChaosProcess, env: Record<string, string>): Promise<void> {
  const args = p.kind === 'api' ? ['start', '--json'] : ['worker', '--json', '--sweep-interval-ms', '1000'];
  // A restart is the supervisor's, not a fresh load of the sources: the bundle costs a fraction of tsx's start.
  const child = spawnCli(args, env, await cliBundle());
  p.child = child;
  p.starts += 1;
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit');
  const ready = new Promise<string | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${p.name} not ready within ${READY_MS} ms\n${stderr}`)), READY_MS);
    lines.on('line', (line) => {
      let doc: Record<string, unknown>;
      try {
        doc = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof doc.url === 'string' || doc.worker === 'ready') {
        clearTimeout(timer);
        resolve(typeof doc.url === 'string' ? doc.url : null);
      }
    });
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`${p.name} exited (${String(code)}) before it was ready\n${stderr}`));
    });
  });
  try {
    p.url = await ready;
  } catch (err) {
    await killProcess(p);
    throw err;
  }
  // Every line is read (a full pipe would stall the child); pino's error lines are counted for the summary.
  lines.on('line', (line) => {
    if (!line.startsWith('{')) return;
    try {
      const doc = JSON.parse(line) as { level?: number; msg?: string; chain?: string; err?: { message?: string } };
      if ((doc.level ?? 0) < 50) return;
      const key = [doc.chain, doc.msg, doc.err?.message?.slice(0, 160)].filter(Boolean).join(': ');
      p.errors ??= new Map();
      p.errors.set(key, (p.errors.get(key) ?? 0) + 1);
    } catch {
      // Not a log line.
    }
  });
}

export async function killProcess(p: ChaosProcess): Promise<void> {
  const child = p.child;
  p.url = null;
  p.child = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exit = once(child, 'exit');
  child.kill('SIGKILL');
  await exit;
}
