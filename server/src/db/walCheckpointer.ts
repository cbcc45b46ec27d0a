/**
 * Checkpoints of an embedded database's write-ahead log, in a worker thread (docs/decisions.md §23.10). SQLite
 * checkpoints on the committing connection by default, when the log passes 1000 pages: the commit that crosses it
 * copies the log into the database file and syncs it, and better-sqlite3 is synchronous, so every request of the
 * process waits for that disk. Here the process's own connection never checkpoints below a backstop
 * (`BACKSTOP_PAGES`), and a worker thread with a connection of its own checkpoints every `intervalMs` in PASSIVE mode,
 * which takes no lock that writers or readers wait for: the copying and syncing leave the request path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The process's connection checkpoints only past this many log pages (≈ 80 MB): the worker keeps the log far below
 * it, so the backstop acts only if the worker is gone, and the log never grows without bound.
 */
export const BACKSTOP_PAGES = 20_000;

export interface WalCheckpointer {
  /** Checkpoints once more and ends the worker. */
  stop(): Promise<void>;
}

// Plain JavaScript evaluated in the worker (no loader there); better-sqlite3 is resolved from this module.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
const db = new Database(workerData.filename);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export function startWalCheckpointer(
  filename: string,
  options: { intervalMs?: number; onError?: (message: string) => void } = {},
): WalCheckpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      filename,
      intervalMs: options.intervalMs ?? 250,
      betterSqlite3: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  // The process's connection is the backstop; a worker that stops checkpointing must not stop the process.
  worker.unref();
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  worker.on('error', (err) => options.onError?.(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
