/**
 * The claim's jobs after confirm: `gateway.relay` submits what the service submits (an authorization), then
 * `gateway.watchClaim` looks at the chain until the transfer is final at depth, and moves the payment to
 * `succeeded` or `failed`. Both are idempotent: they start from the stored claim and the payment's status.
 */
import { findClaimOfPayment, updateClaim } from '../db/queries/claims.js';
import { findPayment } from '../db/queries/payments.js';
import { assertPayload, type TaskList } from '../jobs/types.js';
import { transitionPayment } from '../payments/lifecycle.js';
import { iso } from '../payments/snapshot.js';
import { RELAY_TASK, WATCH_TASK } from './jobNames.js';
import { requireAdapter, type Checkout } from './context.js';
import { SOLANA_PAY_SEARCH_TASK, searchSolanaPay } from './solanaPay.js';

export { RELAY_TASK, WATCH_TASK };

async function processingClaim(checkout: Checkout, paymentId: string) {
  const payment = await findPayment(checkout.db.knex, paymentId);
  const claim = await findClaimOfPayment(checkout.db.knex, paymentId);
  if (!payment || !claim || payment.status !== 'processing') return null;
  return claim;
}

export async function relayClaim(checkout: Checkout, paymentId: string): Promise<void> {
  const claim = await processingClaim(checkout, paymentId);
  if (!claim) return;
  const { txId } = await requireAdapter(checkout, claim.chain).submit(claim);
  const now = checkout.now();
  await checkout.db.knex.transaction(async (trx) => {
    if (txId && txId !== claim.txId) await updateClaim(trx, paymentId, { txId, state: 'submitted', updatedAt: now });
    await checkout.jobs.add(trx, WATCH_TASK, { paymentId }, { jobKey: `${WATCH_TASK}:${paymentId}` });
  });
}

export async function watchClaim(checkout: Checkout, paymentId: string): Promise<void> {
  const claim = await processingClaim(checkout, paymentId);
  if (!claim) return;
  const now = checkout.now();
  const progress = await requireAdapter(checkout, claim.chain).progress(claim, now);
  if (progress.state === 'pending') {
    await checkout.db.knex.transaction(async (trx) => {
      if ((progress.txId && progress.txId !== claim.txId) || progress.details) {
        await updateClaim(trx, paymentId, { txId: progress.txId, details: progress.details, updatedAt: now });
      }
      await checkout.jobs.add(
        trx,
        WATCH_TASK,
        { paymentId },
        { jobKey: `${WATCH_TASK}:${paymentId}`, runAt: now + progress.recheckInMs },
      );
    });
    return;
  }
  await checkout.db.knex.transaction(async (trx) => {
    await updateClaim(trx, paymentId, {
      txId: progress.txId ?? claim.txId,
      state: progress.state,
      ...(progress.state === 'succeeded' && progress.details ? { details: progress.details } : {}),
      updatedAt: now,
    });
    // A success's settlement follows from its event, in this transaction (settlement/modes.ts `settlementHook`).
    await transitionPayment(
      checkout,
      paymentId,
      progress.state === 'succeeded'
        ? {
            to: 'succeeded',
            from: ['processing'],
            stages: { success: { succeeded_at: iso(now), tx_id: progress.txId } },
          }
        : {
            to: 'failed',
            from: ['processing'],
            stages: { failed: { failed_at: iso(now), failure_reason: progress.reason } },
          },
      trx,
    );
  });
}

export function checkoutTasks(checkout: Checkout): TaskList {
  return {
    [RELAY_TASK]: async (payload) => {
      assertPayload<{ paymentId: string }>(payload, ['paymentId'], RELAY_TASK);
      await relayClaim(checkout, payload.paymentId);
    },
    [WATCH_TASK]: async (payload) => {
      assertPayload<{ paymentId: string }>(payload, ['paymentId'], WATCH_TASK);
      await watchClaim(checkout, payload.paymentId);
    },
    [SOLANA_PAY_SEARCH_TASK]: async (payload) => {
      assertPayload<{ paymentId: string }>(payload, ['paymentId'], SOLANA_PAY_SEARCH_TASK);
      await searchSolanaPay(checkout, payload.paymentId);
    },
  };
}
