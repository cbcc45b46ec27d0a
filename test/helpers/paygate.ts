/** A real `paygate start --json` in a child process, with its stdout split into our lines and pino's log lines. */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnCli } from './cli.js';
import { eventually, WAIT_MS } from './wait.js';

export interface StartedPaygate {
  child: ChildProcess;
  url: string;
  /** pino's JSON lines, parsed, as they arrive. */
  logs: Record<string, unknown>[];
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

export async function startPaygate(env: Record<string, string>, timeoutMs = 60_000): Promise<StartedPaygate> {
  const child = spawnCli(['start', '--json'], env);
  const exited = (once(child, 'exit') as Promise<[number | null]>).then(([code]) => code);
  let stderr = '';
  const logs: Record<string, unknown>[] = [];
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that never said where it listens is still ours to stop: no test leaves a process behind.
      child.kill('SIGKILL');
      reject(new Error(`no URL within ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      pending += d;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const doc = JSON.parse(pending.slice(0, nl)) as Record<string, unknown>;
        pending = pending.slice(nl + 1);
        if (typeof doc.level === 'number') logs.push(doc);
        else if (typeof doc.url === 'string') {
          clearTimeout(timer);
          resolve(doc.url);
        }
      }
    });
    void exited.then((code) => reject(new Error(`exited ${code} before listening\n${stderr}`)));
  });
  return { child, url, logs, stderr: () => stderr, exited };
}

/** Polls `condition` until it holds (test/helpers/wait.ts); fails after `ms`. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  await eventually(what, condition, { timeoutMs: ms });
}
