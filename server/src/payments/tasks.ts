import { assertPayload, type TaskList } from '../jobs/types.js';
import { findOverduePayments } from '../db/queries/payments.js';
import { expireIfOverdue, settleTestPayment, SETTLE_TEST_TASK, type LifecycleDeps } from './lifecycle.js';

export const EXPIRE_SWEEP_TASK = 'payments.expireOverdue';

/** Moves every payment past its deadline to `expired`, emitting the event; safe to run from many processes. */
export async function sweepExpiredPayments(deps: LifecycleDeps, batch = 500): Promise<number> {
  let moved = 0;
  for (const payment of await findOverduePayments(deps.db.knex, deps.now() - (deps.expiryGraceMs ?? 0), batch)) {
    if ((await expireIfOverdue(deps, payment)).status === 'expired') moved++;
  }
  return moved;
}

export function paymentTasks(deps: LifecycleDeps): TaskList {
  return {
    [SETTLE_TEST_TASK]: async (payload) => {
      assertPayload<{ paymentId: string }>(payload, ['paymentId'], SETTLE_TEST_TASK);
      await settleTestPayment(deps, payload.paymentId);
    },
    [EXPIRE_SWEEP_TASK]: async () => {
      await sweepExpiredPayments(deps);
    },
  };
}
