/**
 * Settlement's jobs and timers. Moves are jobs (one per row, keyed by its id, rescheduled while pending), so any
 * worker process carries them and a crash hands them to another. Planning (sweeps, payouts) runs from timers in every
 * process that runs jobs: a plan is one transaction whose unique keys (a transfer swept once, a payment paid out
 * once) make a concurrent plan of another process fail rather than plan the same funds twice, so no leader is needed.
 */
import { assertPayload, type TaskList } from '../jobs/types.js';
import type { MoveKind } from '../db/queries/moveRows.js';
import { MOVE_LEASE_MS, MOVE_TASK, recoverMoveLeases, resumeMoves, runMove } from './moves.js';
import { planPayouts, type PayoutDeps } from './payouts.js';
import { planSweeps } from './sweeps.js';

/**
 * Node fires a timer longer than this after 1 ms (TimeoutOverflowWarning), and PAYGATE_PAYOUT_INTERVAL_S allows 30
 * days: such a payout interval planned payouts every millisecond.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How often an interval longer than a timer can hold looks whether it is due. */
const LONG_INTERVAL_TICK_MS = 60_000;

/**
 * `setInterval` for any interval: one longer than a timer can hold ticks every minute and fires once its interval
 * has passed on the monotonic clock (at most a minute late). Unref'd: it never keeps a process alive.
 */
export function everyInterval(ms: number, fire: () => void): () => void {
  if (ms <= MAX_TIMER_MS) {
    const timer = setInterval(fire, ms);
    timer.unref();
    return () => clearInterval(timer);
  }
  let last = performance.now();
  const timer = setInterval(() => {
    if (performance.now() - last < ms) return;
    last = performance.now();
    fire();
  }, LONG_INTERVAL_TICK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

export function settlementTasks(deps: PayoutDeps): TaskList {
  return {
    [MOVE_TASK]: async (payload) => {
      assertPayload<{ kind: MoveKind; id: string; failures?: number }>(payload, ['kind', 'id'], MOVE_TASK);
      await runMove(deps, payload.kind, payload.id, payload.failures ?? 0);
    },
  };
}

/**
 * Starts planning sweeps at the detection's cadence and payouts at theirs, and the sweep of passed move leases, after
 * handing every open move its job again; answers the function that stops them (and waits for a round in progress).
 */
export function startSettlementSchedule(deps: PayoutDeps): () => Promise<void> {
  if (deps.config.settlement.depositSeed === null) return async () => undefined;
  let running: Promise<unknown> = resumeMoves(deps).catch((err: unknown) =>
    deps.logger.error({ err }, 'resuming settlement moves failed'),
  );
  const every = (ms: number, work: () => Promise<unknown>, what: string): (() => void) =>
    everyInterval(ms, () => {
      running = running.then(work).catch((err: unknown) => deps.logger.error({ err }, `${what} failed`));
    });
  const timers = [
    every(deps.config.settlement.scanIntervalMs, () => planSweeps(deps), 'sweep planning'),
    every(deps.config.settlement.payoutIntervalMs, () => planPayouts(deps), 'payout planning'),
    // A dead worker's move is taken on within a lease and a tenth (moves.ts, recoverMoveLeases).
    every((deps.moveLeaseMs ?? MOVE_LEASE_MS) / 10, () => recoverMoveLeases(deps), 'move lease sweep'),
  ];
  return async () => {
    for (const stop of timers) stop();
    await running;
  };
}
