/**
 * A payment's timeline for the dashboard: its transitions (from its stages), its outbox events, and each event's
 * deliveries with their attempts. Lives in webhooks/ because it reads both sides (webhooks/ already depends on
 * payments/, not the other way round).
 */
import { listEventsForPayment } from '../db/queries/events.js';
import { listAttemptsOf, listPaymentDeliveries } from '../db/queries/timelineDeliveries.js';
import { findVisibleDelivery } from '../db/queries/webhooks.js';
import { ApiError } from '../errors.js';
import type { components, operations } from '../generated/dashboard.js';
import type { LifecycleDeps } from '../payments/lifecycle.js';
import type { WebhookEventType } from '../payments/stateMachine.js';
import { readPayment, type MerchantScope } from '../payments/merchantPayments.js';
import { deliveryJson, unixSeconds } from './wire.js';

export type PaymentTimeline = components['schemas']['PaymentTimeline'];
export type TimelineQuery = NonNullable<operations['getPaymentTimeline']['parameters']['query']>;
type Entry = PaymentTimeline['entries'][number];
type TimelineStatus = components['schemas']['PaymentTimelineStatus'];

/**
 * A payment's life in order; an event sorts with the step it reports, so equal instants keep cause before effect.
 * Both tables are total over the contract's enums: a new status or event type does not compile until it has a step.
 */
const STATUS_STEP: Record<TimelineStatus, number> = {
  requires_action: 0,
  processing: 1,
  succeeded: 2,
  failed: 2,
  expired: 2,
  cancelled: 2,
  settled: 3,
  refunded: 4,
};
const EVENT_STEP: Record<WebhookEventType, number> = {
  'payment.created': 0,
  'payment.processing': 1,
  'payment.succeeded': 2,
  'payment.failed': 2,
  'payment.expired': 2,
  'payment.cancelled': 2,
  'payment.settled': 3,
};

/**
 * Deliveries per page (the contract's TimelineLimit): a payment resent thousands of times pages instead of being cut
 * off (docs/decisions.md §24.2). Transitions and events are few and ride on every page.
 */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 100;

/** The delivery `startingAfter` names, if it is one of this payment's timeline (404 `invalid_params` otherwise). */
async function cursorOf(deps: LifecycleDeps, scope: MerchantScope, paymentId: string, startingAfter: string) {
  const after = await findVisibleDelivery(deps.db.knex, startingAfter, scope.merchantId, scope.live);
  if (!after || after.payment_id !== paymentId || after.trigger === 'test') {
    throw new ApiError('invalid_params', `startingAfter: no webhook delivery with id ${startingAfter}.`, {
      status: 404,
    });
  }
  return { created_at: after.created_at, id: after.id };
}

export async function getPaymentTimeline(
  deps: LifecycleDeps,
  scope: MerchantScope,
  paymentId: string,
  query: TimelineQuery = {},
): Promise<PaymentTimeline> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  // The HTTP validator enforces the bound; other callers reach here without it.
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new ApiError('params_validation', `limit: must be an integer from 1 to ${MAX_LIMIT}.`);
  const payment = await readPayment(deps, scope, paymentId);
  const startingAfter =
    query.startingAfter === undefined ? undefined : await cursorOf(deps, scope, paymentId, query.startingAfter);
  const { processing, success, failed, cancelled, expired, settled, refunded } = payment.stages;
  const steps: [TimelineStatus, string | undefined][] = [
    ['processing', processing?.processing_at],
    ['succeeded', success?.succeeded_at],
    ['failed', failed?.failed_at],
    ['cancelled', cancelled?.cancelled_at],
    ['expired', expired?.expired_at],
    ['settled', settled?.settled_at],
    ['refunded', refunded?.refunded_at],
  ];
  // Sorted by millisecond; at the same instant by step, a transition before the event it caused.
  const sortable: { ms: number; rank: number; entry: Entry }[] = [
    {
      ms: payment.created_at,
      rank: 0,
      entry: { at: unixSeconds(payment.created_at), kind: 'transition', status: 'requires_action' },
    },
  ];
  for (const [status, at] of steps) {
    if (at === undefined) continue;
    const ms = Date.parse(at);
    sortable.push({ ms, rank: STATUS_STEP[status] * 2, entry: { at: unixSeconds(ms), kind: 'transition', status } });
  }

  const rows = await listPaymentDeliveries(deps.db.knex, {
    merchantId: scope.merchantId,
    live: scope.live,
    paymentId,
    startingAfter,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const deliveries = rows.slice(0, limit);
  const attempts = await listAttemptsOf(
    deps.db.knex,
    deliveries.map((d) => d.id),
  );
  const byEvent = new Map<string, typeof deliveries>();
  for (const d of deliveries) byEvent.set(d.event_id, [...(byEvent.get(d.event_id) ?? []), d]);

  for (const event of await listEventsForPayment(deps.db.knex, paymentId)) {
    // Oldest first; at the same instant the first send before its resends and replays.
    const ofEvent = (byEvent.get(event.id) ?? []).sort(
      (a, b) => a.created_at - b.created_at || Number(a.trigger !== 'event') - Number(b.trigger !== 'event'),
    );
    const withAttempts = ofEvent.map((d) => deliveryJson(d, attempts.get(d.id)));
    sortable.push({
      ms: event.created_at,
      rank: EVENT_STEP[event.type as WebhookEventType] * 2 + 1,
      entry: {
        at: unixSeconds(event.created_at),
        kind: 'event',
        event: { id: event.id, type: event.type as NonNullable<Entry['event']>['type'] },
        deliveries: withAttempts,
      },
    });
  }
  sortable.sort((a, b) => a.ms - b.ms || a.rank - b.rank);
  return {
    entries: sortable.map((s) => s.entry),
    hasMore,
    nextCursor: hasMore ? deliveries.at(-1)!.id : null,
  };
}
