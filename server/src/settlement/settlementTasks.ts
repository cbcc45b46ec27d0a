/**
 * Settlement's jobs and timers. Moves are jobs (one per row, keyed by its id, rescheduled while pending), so any
 * worker process carries them and a crash hands them to another. Planning (sweeps, payouts) runs from timers in every
 * process that runs jobs: a plan is one transaction whose unique keys (a transfer swept once, a payment paid out
 * once) make a concurrent plan of another process fail rather than plan the same funds twice, so no leader is needed.
 */
import { assertPayload, type TaskList } from '../jobs/types.js';
import type { MoveKind } from '../db/queries/moveRows.js';
import { MOVE_TASK, resumeMoves, runMove } from './moves.js';
import { planPayouts, type PayoutDeps } from './payouts.js';
import { planSweeps } from './sweeps.js';

export function settlementTasks(deps: PayoutDeps): TaskList {
  return {
    [MOVE_TASK]: async (payload) => {
      assertPayload<{ kind: MoveKind; id: string }>(payload, ['kind', 'id'], MOVE_TASK);
      await runMove(deps, payload.kind, payload.id);
    },
  };
}

/**
 * Starts planning sweeps at the detection's cadence and payouts at theirs, after handing every open move its job
 * again; answers the function that stops them (and waits for a round in progress).
 */
export function startSettlementSchedule(deps: PayoutDeps): () => Promise<void> {
  if (deps.config.settlement.depositSeed === null) return async () => undefined;
  let running: Promise<unknown> = resumeMoves(deps).catch((err: unknown) =>
    deps.logger.error({ err }, 'resuming settlement moves failed'),
  );
  const every = (ms: number, work: () => Promise<unknown>, what: string): NodeJS.Timeout => {
    const timer = setInterval(() => {
      running = running.then(work).catch((err: unknown) => deps.logger.error({ err }, `${what} failed`));
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [
    every(deps.config.settlement.scanIntervalMs, () => planSweeps(deps), 'sweep planning'),
    every(deps.config.settlement.payoutIntervalMs, () => planPayouts(deps), 'payout planning'),
  ];
  return async () => {
    for (const t of timers) clearInterval(t);
    await running;
  };
}
