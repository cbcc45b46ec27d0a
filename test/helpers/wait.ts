/**
 * The suite's only ways to wait. A chain, a job runner or another process answers in its own time, and more slowly
 * on a loaded machine, so a test never reads a result once right after causing it and never sleeps a fixed time: it
 * polls through one of these, each bounded by `WAIT_MS` (or its own `timeoutMs`), and fails with what it waited for.
 * eslint (eslint.config.js) refuses receipt and transaction reads and fixed sleeps in test files outside this one.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Signature } from '@solana/kit';
import {
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hash,
  type PublicClient,
  type Transaction,
  type TransactionReceipt,
} from 'viem';
import type { SolanaRpc } from './solana.js';

/**
 * How long a wait may take before it fails. It bounds only a failing test: a passing one returns as soon as the
 * condition holds. `PAYGATE_TEST_WAIT_MS` raises it on a very slow machine.
 */
export const WAIT_MS = Number(process.env.PAYGATE_TEST_WAIT_MS ?? 20_000);

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `check` until it answers a value that is neither `undefined`, `null` nor `false`, and returns that value.
 * An error thrown by `check` ends the wait at once: only "not yet" is retried.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = WAIT_MS, intervalMs = 20 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(intervalMs);
  }
}

/** Resolves with the first of `promise` and a bounded timer: for "this must not answer in time" checks. */
export async function answerWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<{ answered: true; value: T } | { answered: false }> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      promise.then((value) => ({ answered: true as const, value })),
      delay(ms, undefined, { signal: timer.signal }).then(() => ({ answered: false as const })),
    ]);
  } finally {
    timer.abort();
  }
}

function unless<E extends abstract new (...args: never[]) => Error>(kind: E) {
  return (err: unknown) => {
    if (err instanceof kind) return undefined;
    throw err;
  };
}

/** The receipt of a sent EVM transaction, once the node has it. */
export function receiptOf(
  client: Pick<PublicClient, 'getTransactionReceipt'>,
  hash: Hash,
): Promise<TransactionReceipt> {
  return eventually(`the receipt of ${hash}`, () =>
    client.getTransactionReceipt({ hash }).catch(unless(TransactionReceiptNotFoundError)),
  );
}

/** A sent EVM transaction, once the node knows it. */
export function transactionOf(client: Pick<PublicClient, 'getTransaction'>, hash: Hash): Promise<Transaction> {
  return eventually(`the transaction ${hash}`, () =>
    client.getTransaction({ hash }).catch(unless(TransactionNotFoundError)),
  );
}

type Commitment = 'confirmed' | 'finalized';

function landedJson(rpc: SolanaRpc, signature: Signature, commitment: Commitment) {
  return rpc.getTransaction(signature, { encoding: 'json', commitment, maxSupportedTransactionVersion: 0 }).send();
}

function landedBase64(rpc: SolanaRpc, signature: Signature, commitment: Commitment) {
  return rpc.getTransaction(signature, { encoding: 'base64', commitment, maxSupportedTransactionVersion: 0 }).send();
}

/** A landed Solana transaction, as `getTransaction` answers it once the node has it at `commitment`. */
export function solanaTransactionOf(
  rpc: SolanaRpc,
  signature: Signature | string,
  options?: { encoding?: 'json'; commitment?: Commitment },
): Promise<NonNullable<Awaited<ReturnType<typeof landedJson>>>>;
export function solanaTransactionOf(
  rpc: SolanaRpc,
  signature: Signature | string,
  options: { encoding: 'base64'; commitment?: Commitment },
): Promise<NonNullable<Awaited<ReturnType<typeof landedBase64>>>>;
export function solanaTransactionOf(
  rpc: SolanaRpc,
  signature: Signature | string,
  { encoding = 'json', commitment = 'confirmed' }: { encoding?: 'json' | 'base64'; commitment?: Commitment } = {},
): Promise<unknown> {
  const read = (): Promise<unknown> =>
    encoding === 'json'
      ? landedJson(rpc, signature as Signature, commitment)
      : landedBase64(rpc, signature as Signature, commitment);
  return eventually(`the Solana transaction ${signature}`, read);
}

/** What the job-driving helpers need of a harness: its due jobs and its business clock. */
export interface JobDriver {
  drain(): Promise<unknown>;
  clock: { advance(ms: number): void };
}

export interface DriveOptions extends WaitOptions {
  /** How far the business clock moves between rounds: a job's recheck interval. */
  stepMs?: number;
  /** How far it may move in all. */
  maxAdvanceMs?: number;
}

/**
 * Runs the due jobs, then asks `done`; while it answers "not yet", moves the business clock by `stepMs` (so a job
 * that scheduled a recheck becomes due) and runs them again. This is how a test waits for a job's outcome when a
 * chain or another process decides how many rounds that takes.
 */
export async function driveJobsUntil<T>(
  what: string,
  driver: JobDriver,
  done: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { stepMs = 2_000, maxAdvanceMs = 300_000, intervalMs = 50, ...options }: DriveOptions = {},
): Promise<T> {
  let first = true;
  let advanced = 0;
  return eventually(
    what,
    async () => {
      // The business clock moves only so far, so that a slow chain cannot push a payment past its own expiry.
      if (!first && advanced + stepMs <= maxAdvanceMs) {
        driver.clock.advance(stepMs);
        advanced += stepMs;
      }
      first = false;
      await driver.drain();
      return done();
    },
    { ...options, intervalMs },
  );
}

/**
 * Time a simulated piece of work takes (a slow job, a slow callback): the system under test waits on it, the test
 * never does. Not for waiting on an outcome, which is `eventually`'s.
 */
export function simulatedWork(ms: number): Promise<void> {
  return delay(ms);
}

/**
 * Runs the due jobs and moves the business clock while `promise` (a client that waits on the outcome, such as an
 * SDK's `pay`) is pending, and returns what it settles with. `shouldDrive` lets a round pass without running jobs.
 */
export async function driveJobsWhile<T>(
  what: string,
  promise: Promise<T>,
  driver: JobDriver,
  {
    stepMs = 1_000,
    shouldDrive,
    ...options
  }: WaitOptions & { stepMs?: number; shouldDrive?: () => Promise<boolean> } = {},
): Promise<T> {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  watched.catch(() => undefined);
  await eventually(
    what,
    async () => {
      if (settled) return true;
      if (!shouldDrive || (await shouldDrive())) {
        driver.clock.advance(stepMs);
        await driver.drain();
      }
      return settled;
    },
    { intervalMs: 50, ...options },
  );
  return watched;
}
