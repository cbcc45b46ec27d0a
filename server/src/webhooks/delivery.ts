/**
 * At-least-once delivery of outbox events. A delivery row is created in the same transaction as its event (the
 * event hook below), with a job to attempt it. Each attempt takes a lease on the row, renews it while it sends,
 * records the attempt and schedules the next one. The schedule lives in the row, so the lease sweeper can recover any
 * delivery whose worker died, and a second worker can never make the same attempt twice, nor at the same time.
 */
import { openEventPayload } from '../payments/eventPayload.js';
import type { Knex } from 'knex';
import {
  findActiveEndpoint,
  claimDeliveryWithContext,
  recordDeliveredAttempt,
  recordsDeliveredAttemptInOneStatement,
  finishAttempt,
  insertAttempt,
  insertDelivery,
  findEndpoint,
  updateEndpoint,
  setDeliveryStatus,
  findDueDeliveries,
  findExpiredLeases,
  failPendingDeliveries,
  renewLease,
  type DeliveryRow,
  type DeliveryTrigger,
  type EndpointRow,
} from '../db/queries/webhooks.js';
import type { EventRow } from '../db/queries/events.js';
import { timeOrderedId } from '../ids.js';
import { assertPayload, type TaskList } from '../jobs/types.js';
import type { EventHook } from '../payments/lifecycle.js';
import type { WebhookDeps } from './deliveryDeps.js';
import { DISABLED_AFTER_FAILURES } from './endpoints.js';
import { Interrupted, listenUnbounded, sendWebhook, type AttemptResult } from './send.js';
import { checkWebhookUrl, WebhookUrlError } from './ssrf.js';
import { DISABLE_AFTER_MS, nextAttemptAt } from './schedule.js';

export const DELIVER_TASK = 'webhooks.deliver';
export const USER_AGENT = 'Paygate-Webhooks/1.0';

export const newDeliveryId = () => timeOrderedId('whd_');

/** A delivery of `event` to `endpoint`, due at `now`, not yet attempted. */
export function pendingDelivery(
  endpoint: EndpointRow,
  event: { id: string; type: string; payment_id: string; payload?: string | null },
  trigger: DeliveryTrigger,
  now: number,
): DeliveryRow {
  return {
    id: newDeliveryId(),
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    payment_id: event.payment_id,
    merchant_id: endpoint.merchant_id,
    live: endpoint.mode === 'live',
    payload: event.payload ?? null,
    status: 'pending',
    trigger,
    attempt_count: 0,
    next_attempt_at: now,
    lease_until: null,
    lease_owner: null,
    created_at: now,
    delivered_at: null,
    updated_at: now,
  };
}

/** Creates a pending delivery and its first job, inside the caller's transaction. */
export async function scheduleDelivery(
  deps: WebhookDeps,
  trx: Knex | Knex.Transaction,
  endpoint: EndpointRow,
  event: { id: string; type: string; payment_id: string; payload?: string | null },
  trigger: DeliveryTrigger,
): Promise<DeliveryRow> {
  const row = pendingDelivery(endpoint, event, trigger, deps.now());
  await insertDelivery(trx, row);
  await deps.jobs.add(trx, DELIVER_TASK, { deliveryId: row.id }, { jobKey: `whd:${row.id}` });
  return row;
}

/** The lifecycle's event hook: every event goes to the merchant's endpoint for its mode, if it wants the type. */
export function deliveryHook(deps: WebhookDeps): EventHook {
  // Read once per transaction and merchant mode: a group commit writes the events of many creates together, and
  // nothing in a lifecycle transaction changes endpoints.
  const endpointsIn = new WeakMap<Knex.Transaction, Map<string, Promise<EndpointRow | null>>>();
  const hook: EventHook = async (trx, event: EventRow) => {
    const mode = event.live ? 'live' : 'test';
    let known = endpointsIn.get(trx);
    if (!known) endpointsIn.set(trx, (known = new Map()));
    let lookup = known.get(`${event.merchant_id}:${mode}`);
    if (!lookup) known.set(`${event.merchant_id}:${mode}`, (lookup = findActiveEndpoint(trx, event.merchant_id, mode)));
    const endpoint = await lookup;
    if (!endpoint || !endpoint.enabled || !endpoint.event_types.includes(event.type)) return;
    // A sealed event's delivery reads the sealed envelope at its attempt, never a plaintext copy (§30.3).
    const payload = event.payload_sealed ? null : event.payload;
    await scheduleDelivery(deps, trx, endpoint, { ...event, payload }, 'event');
  };
  // It writes only for a merchant's mode with an endpoint, which the one-statement create checks for itself.
  hook.onCreated = 'whenEndpoint';
  return hook;
}

/** The signature header: one `v1,` entry per valid secret, so receivers on either side of a rotation verify. */
export function signatureHeader(
  deps: WebhookDeps,
  endpoint: EndpointRow,
  eventId: string,
  timestampSeconds: number,
  body: string,
  now: number,
): string {
  const signers = [deps.deliveryParts.signers.signer(endpoint.secret_sealed, endpoint.id)];
  if (endpoint.previous_secret_sealed && (endpoint.previous_secret_expires_at ?? 0) > now) {
    signers.push(deps.deliveryParts.signers.signer(endpoint.previous_secret_sealed, `${endpoint.id}:previous`));
  }
  return signers.map((s) => s.sign(eventId, timestampSeconds, body)).join(' ');
}

/** One attempt of one delivery, if it is due and nobody else holds it. */
export async function attemptDelivery(deps: WebhookDeps, deliveryId: string): Promise<AttemptResult | null> {
  const owner = deps.deliveryParts.newLeaseOwner();
  const claimStarted = performance.now();
  const claimedAt = deps.now();
  const claimed = await claimDeliveryWithContext(
    deps.deliveryParts.steps,
    deliveryId,
    owner,
    claimedAt,
    deps.webhookOptions.leaseMs,
  );
  if (!claimed) return null;
  const { delivery, endpoint } = claimed;
  const body = claimed.payloadSealed
    ? openEventPayload(deps.secretBox, delivery.event_id, { payload: '', payload_sealed: claimed.payloadSealed })
    : claimed.payload;
  if (!endpoint || endpoint.deleted_at !== null || !endpoint.enabled) {
    // A deleted or disabled endpoint receives nothing more (spec: deletion is immediate).
    await setDeliveryStatus(deps.db.knex, delivery.id, 'failed', claimedAt);
    return null;
  }
  if (body === null) {
    await setDeliveryStatus(deps.db.knex, delivery.id, 'failed', claimedAt);
    deps.logger.error({ delivery: delivery.id, event: delivery.event_id }, 'webhook event payload missing');
    return null;
  }

  const lease = holdLease(deps, delivery.id, owner, claimStarted);
  try {
    return await attemptClaimed(deps, { delivery, endpoint, payload: body }, owner, lease);
  } finally {
    lease.stop();
  }
}

async function attemptClaimed(
  deps: WebhookDeps,
  { delivery, endpoint, payload: body }: { delivery: DeliveryRow; endpoint: EndpointRow; payload: string },
  owner: string,
  lease: HeldLease,
): Promise<AttemptResult> {
  const attempt = delivery.attempt_count + 1;
  const startedAt = deps.now();
  let result: AttemptResult;
  let refused = false;
  try {
    const target = await checkWebhookUrl(endpoint.url, {
      mode: endpoint.mode,
      allowLoopback: deps.config.webhookAllowLoopback,
      resolve: deps.webhookOptions.resolve,
    });
    const timestamp = Math.floor(startedAt / 1000);
    result = await sendWebhook({
      target,
      body,
      timeoutMs: deps.webhookOptions.attemptTimeoutMs,
      signal: lease.signal,
      agents: deps.deliveryParts.agents,
      headers: {
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(deps, endpoint, delivery.event_id, timestamp, body, startedAt),
        'user-agent': USER_AGENT,
      },
    });
  } catch (err) {
    if (!(err instanceof WebhookUrlError)) throw err;
    refused = true;
    result = { status: null, latencyMs: 0, error: `refused: ${err.message}`, responseBody: null, delivered: false };
  }

  const endedAt = deps.now();
  const attemptRow = {
    delivery_id: delivery.id,
    attempt,
    started_at: startedAt,
    status: result.status,
    latency_ms: result.latencyMs,
    error: result.error?.slice(0, 500) ?? null,
    response_body: result.responseBody,
    delivered: result.delivered,
  };
  // The common case, a success to a healthy endpoint, is one statement where the database allows it, shared with the
  // claims and records of the other attempts this process makes at the same moment (see `claimDeliveryWithContext`).
  const fastPath =
    recordsDeliveredAttemptInOneStatement(deps.db.knex) && result.delivered && endpoint.failing_since === null;
  const record = () =>
    fastPath
      ? recordDeliveredAttempt(deps.deliveryParts.steps, owner, attemptRow, endedAt).then((kept) => {
          if (!kept) throw new LeaseLost();
        })
      : deps.db.knex.transaction(async (trx) => {
          const next = result.delivered ? null : nextAttemptAt(attempt, endedAt);
          const status: DeliveryRow['status'] = result.delivered ? 'delivered' : next === null ? 'failed' : 'pending';
          // The conditional update first: it locks the row, so a worker that lost the lease stops here, before it
          // could collide with the attempt row of the worker that took the step over.
          const kept = await finishAttempt(trx, delivery.id, owner, {
            status,
            attempt_count: attempt,
            next_attempt_at: next,
            // The contract's `deliveredAt` is when the successful attempt was sent: its `webhook-timestamp`.
            delivered_at: result.delivered ? startedAt : null,
            updated_at: endedAt,
          });
          // Our lease passed and another worker took the delivery over: its record of this step wins.
          if (!kept) throw new LeaseLost();
          await insertAttempt(trx, attemptRow);
          const disabled = await updateEndpointHealth(trx, endpoint, result.delivered, endedAt);
          if (status === 'pending' && !disabled)
            await deps.jobs.add(
              trx,
              DELIVER_TASK,
              { deliveryId: delivery.id },
              { jobKey: `whd:${delivery.id}`, runAt: next! },
            );
        });
  try {
    // A renewal already found the lease taken over: nothing to try.
    if (lease.takenOver()) throw new LeaseLost();
    await record();
  } catch (err) {
    if (!(err instanceof LeaseLost)) throw err;
    deps.logger.warn({ delivery: delivery.id, attempt }, 'webhook attempt lease lost; not recorded twice');
  }
  deps.observer?.webhookAttempt({
    outcome: result.delivered ? 'delivered' : refused ? 'refused' : 'failed',
    seconds: result.latencyMs / 1000,
  });
  if (result.delivered) deps.observer?.webhookDelivered({ seconds: Math.max(0, endedAt - delivery.created_at) / 1000 });
  deps.logger.info(
    {
      delivery: delivery.id,
      event: delivery.event_id,
      attempt,
      status: result.status,
      delivered: result.delivered,
      ms: result.latencyMs,
      error: result.error,
    },
    'webhook attempt',
  );
  return result;
}

class LeaseLost extends Error {}

interface HeldLease {
  /** Ends the send: aborted at shutdown, and when the lease is no longer surely ours. */
  signal: AbortSignal;
  /** A renewal found another worker's claim on the delivery. */
  takenOver(): boolean;
  stop(): void;
}

/**
 * Keeps a claimed attempt's lease while the attempt is in flight (schedule.ts, Leases; docs/decisions.md §13). Every
 * `renewIntervalMs` the lease is extended, conditionally on its owner, so a live worker keeps it however long the
 * attempt takes. The send is ended as soon as the lease is no longer surely ours, so that no step is ever sent by two
 * workers at once:
 * - a renewal changed nothing: another worker's claim took the lease over (this process was stalled past it). The
 *   attempt is then not recorded; the other worker's record of the step is the one.
 * - no renewal got through and the lease is about to pass (the database out of reach): the send ends a tenth of a
 *   lease before anyone may claim the step, timed on this process's monotonic clock from the start of the claim or
 *   of the last renewal that got through. It is recorded as a failed attempt if the lease is still ours by then.
 */
function holdLease(deps: WebhookDeps, deliveryId: string, owner: string, claimStarted: number): HeldLease {
  const { leaseMs, renewIntervalMs } = deps.webhookOptions;
  const controller = new AbortController();
  let takenOver = false;
  let stopped = false;
  let renewTimer: NodeJS.Timeout | undefined;
  let guardTimer: NodeJS.Timeout | undefined;
  const interrupt = (message: string) => {
    if (!controller.signal.aborted) controller.abort(new Interrupted(message));
  };
  const guardFrom = (confirmedAt: number) => {
    clearTimeout(guardTimer);
    const left = confirmedAt + leaseMs - leaseMs / 10 - performance.now();
    guardTimer = setTimeout(() => interrupt('interrupted: its lease could not be renewed'), Math.max(0, left));
    guardTimer.unref();
  };
  const renew = async () => {
    const started = performance.now();
    try {
      const kept = await renewLease(deps.db.knex, deliveryId, owner, deps.now(), leaseMs);
      if (stopped) return;
      if (!kept) {
        takenOver = true;
        interrupt('interrupted: another worker took the attempt over');
        return;
      }
      guardFrom(started);
    } catch (err) {
      if (stopped) return;
      deps.logger.warn({ err, delivery: deliveryId }, 'webhook lease renewal failed');
    }
    renewTimer = setTimeout(() => void renew(), renewIntervalMs);
    renewTimer.unref();
  };
  const shutdown = deps.shutdownSignal;
  const onShutdown = () => interrupt('interrupted: the sender shut down');
  if (shutdown) {
    listenUnbounded(shutdown);
    if (shutdown.aborted) onShutdown();
    else shutdown.addEventListener('abort', onShutdown, { once: true });
  }
  guardFrom(claimStarted);
  renewTimer = setTimeout(() => void renew(), renewIntervalMs);
  renewTimer.unref();
  return {
    signal: controller.signal,
    takenOver: () => takenOver,
    stop() {
      stopped = true;
      clearTimeout(renewTimer);
      clearTimeout(guardTimer);
      shutdown?.removeEventListener('abort', onShutdown);
    },
  };
}

/**
 * Any success resets the failure clock; five days of nothing but failures disables the endpoint, which ends its
 * pending deliveries (this one included) as a disable by hand does. True when this attempt disabled it.
 */
async function updateEndpointHealth(
  trx: Knex.Transaction,
  endpoint: EndpointRow,
  delivered: boolean,
  now: number,
): Promise<boolean> {
  if (delivered) {
    // Conditional, so the common case (a healthy endpoint) writes nothing.
    await trx('webhook_endpoints')
      .where({ id: endpoint.id })
      .whereNotNull('failing_since')
      .update({ failing_since: null });
    return false;
  }
  const fresh = (await findEndpoint(trx, endpoint.id))!;
  const since = fresh.failing_since ?? now;
  if (fresh.failing_since === null) await updateEndpoint(trx, endpoint.id, { failing_since: since });
  if (!fresh.enabled || now - since < DISABLE_AFTER_MS) return false;
  await updateEndpoint(trx, endpoint.id, { enabled: false, disabled_reason: DISABLED_AFTER_FAILURES });
  await failPendingDeliveries(trx, endpoint.id, now);
  return true;
}

/** Re-enqueues deliveries that are due but have no live job: a dead worker's, or one whose job was lost. */
export async function sweepDeliveries(deps: WebhookDeps, limit = 500): Promise<number> {
  const due = await findDueDeliveries(deps.db.knex, deps.now(), limit);
  for (const id of due) await deps.jobs.add(deps.db.knex, DELIVER_TASK, { deliveryId: id }, { jobKey: `whd:${id}` });
  return due.length;
}

/**
 * Re-enqueues the deliveries whose lease passed with their attempt unrecorded: a dead worker's. Run every
 * `leaseSweepIntervalMs` by every process, so a dead worker's attempts move on within a lease and a sweep.
 */
export async function recoverExpiredLeases(deps: WebhookDeps, limit = 500): Promise<number> {
  const expired = await findExpiredLeases(deps.db.knex, deps.now(), limit);
  for (const id of expired) {
    await deps.jobs.add(deps.db.knex, DELIVER_TASK, { deliveryId: id }, { jobKey: `whd:${id}` });
  }
  if (expired.length > 0) deps.logger.info({ deliveries: expired.length }, 'webhook leases passed; attempts handed on');
  return expired.length;
}

export function webhookTasks(deps: WebhookDeps): TaskList {
  return {
    [DELIVER_TASK]: async (payload) => {
      assertPayload<{ deliveryId: string }>(payload, ['deliveryId'], DELIVER_TASK);
      await attemptDelivery(deps, payload.deliveryId);
    },
  };
}
