/**
 * The one place that changes a payment. Every change runs in one transaction that (1) checks the transition
 * against the state machine, (2) bumps payment_state_version by exactly one, (3) writes the event with the full
 * snapshot to the outbox, and (4) adds the jobs the change causes. Nothing else writes to `payments`.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Database } from '../db/connect.js';
import { Combiner } from '../db/combiner.js';
import { isEmbedded } from '../db/dialect.js';
import { refusedByServer } from '../db/failure.js';
import { insertEvents, type EventRow } from '../db/queries/events.js';
import { insertCreates, insertCreatesAlone, type CreateRows } from '../db/queries/creates.js';
import { scopeId, type IdempotencyScope } from '../db/queries/idempotencyKeys.js';
import { findPayment, updatePaymentAtVersion, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/types.js';
import type { Observer } from '../observability/observer.js';
import { iso, toSnapshot, WEBHOOK_API_VERSION, type WebhookEvent } from './snapshot.js';
import { noStages, type SettledStage, type StageChange } from '../db/queries/paymentStages.js';
import { paidToDeposit } from './paidToDeposit.js';
import { canTransition, eventTypeOf, type PaymentStatus, type WebhookEventType } from './stateMachine.js';

/** Called inside the transaction of every event, e.g. to enqueue webhook deliveries. */
export type EventHook = ((trx: Knex.Transaction, event: EventRow, envelope: WebhookEvent) => Promise<void>) & {
  /**
   * What the hook does with a `payment.created` event: nothing, or something only when the payment's merchant has a
   * webhook endpoint for its mode (the delivery hook). When every hook says one of these, creates of merchants
   * without an endpoint commit in one statement without a transaction on PostgreSQL (`insertCreatesAlone`); a hook
   * that says neither keeps every create in a transaction that runs it.
   */
  onCreated?: 'nothing' | 'whenEndpoint';
};

export interface LifecycleDeps {
  db: Database;
  jobs: JobQueue;
  now: () => number;
  logger: Logger;
  eventHooks: EventHook[];
  /** Told of each transition once it has committed (the runtime's metrics). */
  observer?: Pick<Observer, 'paymentTransition'>;
  /**
   * How long after `expires_at` an unpaid payment stays open for the confirm of a transfer mined in time
   * (PAYGATE_LATE_CONFIRM_GRACE_S); it becomes `expired` only then. 0 when absent.
   */
  expiryGraceMs?: number;
}

/** Reports a transition when, and only if, its transaction commits: a rolled-back change never happened. */
function observeOnCommit(
  deps: LifecycleDeps,
  trx: Knex.Transaction,
  from: PaymentStatus | null,
  to: PaymentStatus,
  live: boolean,
): void {
  const observer = deps.observer;
  if (!observer) return;
  trx.executionPromise.then(
    () => observer.paymentTransition({ from, to, live }),
    () => undefined,
  );
}

export const SETTLE_TEST_TASK = 'payments.settleTestPayment';

interface PendingEvent {
  event: EventRow;
  envelope: WebhookEvent;
}

function eventOf(deps: LifecycleDeps, row: PaymentRow, type: WebhookEventType): PendingEvent {
  const now = deps.now();
  const envelope: WebhookEvent = {
    id: newId.event(),
    type,
    api_version: WEBHOOK_API_VERSION,
    created_at: iso(now),
    data: toSnapshot(row),
  };
  const event: EventRow = {
    id: envelope.id,
    payment_id: row.id,
    merchant_id: row.merchant_id,
    live: row.live,
    type,
    state_version: row.state_version,
    created_at: now,
    payload: JSON.stringify(envelope),
  };
  return { event, envelope };
}

/** Writes events to the outbox and runs the event hooks of each, in order, inside the transaction. */
async function writeEvents(deps: LifecycleDeps, trx: Knex.Transaction, pending: PendingEvent[]): Promise<void> {
  await insertEvents(
    trx,
    pending.map((p) => p.event),
  );
  await runEventHooks(deps, trx, pending);
}

/** The event hooks of events already in the outbox, each event's in order, inside the transaction. */
async function runEventHooks(deps: LifecycleDeps, trx: Knex.Transaction, pending: PendingEvent[]): Promise<void> {
  for (const { event, envelope } of pending) {
    for (const hook of deps.eventHooks) await hook(trx, event, envelope);
  }
}

async function writeEvent(
  deps: LifecycleDeps,
  trx: Knex.Transaction,
  row: PaymentRow,
  type: WebhookEventType,
): Promise<void> {
  await writeEvents(deps, trx, [eventOf(deps, row, type)]);
}

export interface NewPayment {
  merchantId: string;
  live: boolean;
  referenceId: string;
  amount: { unit: string; value: string };
  expiresAt: number;
  successUrl: string | null;
  errorUrl: string | null;
}

function newPaymentRow(deps: LifecycleDeps, input: NewPayment): PaymentRow {
  const now = deps.now();
  return {
    id: newId.payment(),
    merchant_id: input.merchantId,
    live: input.live,
    status: 'requires_action',
    state_version: 0,
    reference_id: input.referenceId,
    amount_unit: input.amount.unit,
    amount_value: input.amount.value,
    success_url: input.successUrl,
    error_url: input.errorUrl,
    created_at: now,
    expires_at: input.expiresAt,
    updated_at: now,
    stages: noStages(),
  };
}

/**
 * A create under an `Idempotency-Key` (payments/idempotency.ts): its key, with the answer, is inserted in the
 * transaction that inserts the payment, so the two commit together or not at all, and a key another create holds
 * makes this one create nothing.
 */
export interface KeyedCreate {
  scope: IdempotencyScope;
  requestHash: string;
  createdAt: number;
  /** The answer stored with the key, from the payment about to be inserted. */
  answer: (row: PaymentRow) => { status: number; body: string };
}

interface CreateItem {
  input: NewPayment;
  key?: KeyedCreate;
}

/** The rows of a batch of creates, made once, for either way of inserting them. */
interface PreparedCreates {
  all: PaymentRow[];
  /** The creates that try to insert: every one but a second create of a batch with an earlier one's key. */
  tried: number[];
  pending: PendingEvent[];
  rows: CreateRows[];
}

function prepareCreates(deps: LifecycleDeps, items: CreateItem[]): PreparedCreates {
  const all = items.map((item) => newPaymentRow(deps, item.input));
  const seen = new Set<string>();
  const tried = items.flatMap((item, i) => {
    if (!item.key) return [i];
    const scope = scopeId(item.key.scope);
    if (seen.has(scope)) return [];
    seen.add(scope);
    return [i];
  });
  const pending = tried.map((i) => eventOf(deps, all[i]!, 'payment.created'));
  const rows = tried.map((i, n): CreateRows => {
    const { stages: _stages, ...payment } = all[i]!;
    const event = pending[n]!.event;
    const key = items[i]!.key;
    if (!key) return { payment, event };
    const answer = key.answer(all[i]!);
    return {
      payment,
      event,
      key: {
        ...key.scope,
        request_hash: key.requestHash,
        created_at: key.createdAt,
        response_status: answer.status,
        response_body: answer.body,
      },
    };
  });
  return { all, tried, pending, rows };
}

/** Per create of the batch, its payment if it went in, else null. */
function createdRows({ all, tried }: PreparedCreates, inserted: boolean[]): (PaymentRow | null)[] {
  const go = all.map(() => false);
  tried.forEach((i, n) => (go[i] = inserted[n]!));
  return all.map((row, i) => (go[i] ? row : null));
}

/**
 * Creates payments and their `payment.created` events in the caller's transaction; null for a keyed create whose
 * key was taken. Of two keyed creates of one batch with the same key, only the first tries; the second finds the
 * first's key once committed.
 */
async function insertNewPayments(
  deps: LifecycleDeps,
  trx: Knex.Transaction,
  items: CreateItem[],
): Promise<(PaymentRow | null)[]> {
  const prepared = prepareCreates(deps, items);
  const inserted = await insertCreates(trx, prepared.rows);
  await runEventHooks(
    deps,
    trx,
    prepared.pending.filter((_, n) => inserted[n]),
  );
  const created = createdRows(prepared, inserted);
  for (const row of created) if (row) observeOnCommit(deps, trx, null, row.status, row.live);
  return created;
}

/**
 * The batch in one statement without a transaction (PostgreSQL), when no hook needs one for it; null when a merchant
 * of the batch has a webhook endpoint (nothing was inserted; its mode is remembered in `withEndpoint`).
 */
async function insertNewPaymentsAlone(
  deps: LifecycleDeps,
  items: CreateItem[],
  withEndpoint: EndpointMemory,
): Promise<(PaymentRow | null)[] | null> {
  const prepared = prepareCreates(deps, items);
  const outcome = await insertCreatesAlone(deps.db.knex, prepared.rows);
  if ('endpoints' in outcome) {
    for (const e of outcome.endpoints) withEndpoint.note(e.merchantId, e.live);
    return null;
  }
  const created = createdRows(prepared, outcome.inserted);
  for (const row of created) if (row) deps.observer?.paymentTransition({ from: null, to: row.status, live: row.live });
  return created;
}

/** How long a merchant's mode is known to have a webhook endpoint before a create probes again. */
const ENDPOINT_MEMORY_MS = 60_000;

/**
 * The merchants' modes seen with a webhook endpoint: their creates go straight to a transaction instead of first
 * trying the one-statement insert that would decline them. Only a shortcut: the statement checks for itself.
 */
class EndpointMemory {
  private readonly seen = new Map<string, number>();
  private static keyOf(merchantId: string, live: boolean): string {
    return `${live ? 1 : 0}${merchantId}`;
  }
  note(merchantId: string, live: boolean): void {
    this.seen.set(EndpointMemory.keyOf(merchantId, live), Date.now());
  }
  anyOf(items: CreateItem[]): boolean {
    const now = Date.now();
    return items.some(({ input }) => {
      const key = EndpointMemory.keyOf(input.merchantId, input.live);
      const at = this.seen.get(key);
      if (at === undefined) return false;
      if (now - at < ENDPOINT_MEMORY_MS) return true;
      this.seen.delete(key);
      return false;
    });
  }
}

/**
 * Group commit: creates that arrive together share one transaction (one commit, and on PostgreSQL one insert per
 * table), since a create is mostly commit and round-trip cost; keyed creates too, each with its key row. Each
 * create is still answered only after its own payment has committed; if the shared transaction fails, each create
 * is retried in a transaction of its own (db/combiner.ts). One combiner per set of lifecycle deps, so batched
 * creates share one clock and one set of hooks.
 */
const createCombiners = new WeakMap<LifecycleDeps, Combiner<CreateItem, PaymentRow | null>>();
/** Errors thrown by the statements of a group commit, before any commit was attempted. */
const failedInside = new WeakSet<object>();

/**
 * Whether creates may go in one statement without a transaction: on a database server (on SQLite a statement is no
 * round trip, and the transaction costs nothing), when every event hook says what it does with a created payment.
 */
function createsAlonePossible(deps: LifecycleDeps): boolean {
  return !isEmbedded(deps.db) && deps.eventHooks.every((hook) => hook.onCreated !== undefined);
}

function createCombinerOf(deps: LifecycleDeps): Combiner<CreateItem, PaymentRow | null> {
  let combiner = createCombiners.get(deps);
  if (!combiner) {
    // Two transactions in flight on a database server, so the next batch forms and starts while one waits on the
    // network; an embedded database has one connection, and a second transaction would only wait for it.
    const concurrency = isEmbedded(deps.db) ? 1 : 2;
    const withEndpoint = new EndpointMemory();
    const inTransaction = (items: CreateItem[]) =>
      deps.db.knex.transaction(async (t) => {
        try {
          return await insertNewPayments(deps, t, items);
        } catch (err) {
          if (typeof err === 'object' && err !== null) failedInside.add(err);
          throw err;
        }
      });
    combiner = new Combiner(
      async (items) => {
        if (createsAlonePossible(deps) && !withEndpoint.anyOf(items)) {
          try {
            const created = await insertNewPaymentsAlone(deps, items, withEndpoint);
            if (created) return created;
          } catch (err) {
            // The server refused the statement, so none of it happened; a lost connection may have committed it.
            if (refusedByServer(err)) failedInside.add(err as object);
            throw err;
          }
        }
        return inTransaction(items);
      },
      {
        concurrency,
        // Only a statement that failed inside the transaction proves nothing committed; a failed BEGIN or COMMIT (a
        // lost connection) might have, and the creates are answered with the error instead of being made twice.
        retryAlone: (err) => typeof err === 'object' && err !== null && failedInside.has(err),
      },
    );
    createCombiners.set(deps, combiner);
  }
  return combiner;
}

export async function createPayment(
  deps: LifecycleDeps,
  input: NewPayment,
  /** The caller's transaction, when the payment must commit together with its own writes. */
  trx?: Knex.Transaction,
): Promise<PaymentRow> {
  if (trx) return (await insertNewPayments(deps, trx, [{ input }]))[0]!;
  return (await createCombinerOf(deps).add({ input }))!;
}

/** Creates a payment and stores its key with the answer, in the group commit; null (nothing created) when the key is taken. */
export async function createPaymentWithKey(
  deps: LifecycleDeps,
  input: NewPayment,
  key: KeyedCreate,
): Promise<PaymentRow | null> {
  return createCombinerOf(deps).add({ input, key });
}

export interface Change {
  to: PaymentStatus;
  /** Sub-objects this change sets (the stage of the new status, and any it fills in). */
  stages: StageChange;
  /** Statuses from which this caller may move; a payment already at `to` from a repeat is not an error. */
  from?: readonly PaymentStatus[];
}

export interface ChangeResult {
  payment: PaymentRow;
  /** False when the payment was already at the target (an idempotent repeat). */
  changed: boolean;
}

/** Moves a payment along the state machine, or answers `invalid_state`. */
export async function transitionPayment(
  deps: LifecycleDeps,
  paymentId: string,
  change: Change,
  /** The caller's transaction, when the change must commit together with its own writes. */
  outer?: Knex.Transaction,
): Promise<ChangeResult> {
  const work = async (trx: Knex.Transaction): Promise<ChangeResult> => {
    const current = await findPayment(trx, paymentId, { forUpdate: true });
    if (!current) throw new ApiError('payment_not_found', `No payment with id ${paymentId}.`);
    if (current.status === change.to) return { payment: current, changed: false };
    const allowedFrom = change.from ?? null;
    if (!canTransition(current.status, change.to) || (allowedFrom && !allowedFrom.includes(current.status))) {
      throw new ApiError('invalid_state', `The payment is ${current.status}; it cannot become ${change.to}.`);
    }
    const now = deps.now();
    const next: PaymentRow = {
      ...current,
      status: change.to,
      state_version: current.state_version + 1,
      updated_at: now,
      stages: { ...current.stages, ...change.stages },
    };
    const applied = await updatePaymentAtVersion(trx, current, {
      status: next.status,
      state_version: next.state_version,
      updated_at: now,
      stages: change.stages,
    });
    // Unreachable while the row lock (PostgreSQL) or the single writer (SQLite) holds; a loud failure beats a gap.
    if (!applied) throw new Error(`payment ${paymentId} changed concurrently at version ${current.state_version}`);
    await writeEvent(deps, trx, next, eventTypeOf[change.to as Exclude<PaymentStatus, 'requires_action'>]);
    observeOnCommit(deps, trx, current.status, next.status, next.live);
    if (change.to === 'succeeded' && !next.live && (await paidToDeposit(trx, next)) === null) {
      // Test mode settles automatically (the spec); a job, so the settled event follows the succeeded one. Money at a
      // deposit address settles when its payout is final instead, as live (§22.16).
      await deps.jobs.add(trx, SETTLE_TEST_TASK, { paymentId }, { jobKey: `settle:${paymentId}` });
    }
    return { payment: next, changed: true };
  };
  return outer ? work(outer) : deps.db.knex.transaction(work);
}

/** A stage of a succeeded payment that is not a status: settled (an event) or refunded (a record). */
export async function recordStage<S extends 'settled' | 'refunded'>(
  deps: LifecycleDeps,
  paymentId: string,
  stage: S,
  /**
   * Builds the stage's sub-object from the locked row, or throws an ApiError when the stage is not allowed. It may
   * write rows of its own in `trx` (an on-chain refund and its ledger entry), committed with the stage or not at all.
   */
  build: (
    p: PaymentRow,
    now: number,
    trx: Knex.Transaction,
  ) => Required<StageChange>[S] | null | Promise<Required<StageChange>[S] | null>,
  /** The caller's transaction, when the stage must commit together with its own writes (the ledger's). */
  outer?: Knex.Transaction,
): Promise<ChangeResult> {
  const work = async (trx: Knex.Transaction): Promise<ChangeResult> => {
    const current = await findPayment(trx, paymentId, { forUpdate: true });
    if (!current) throw new ApiError('payment_not_found', `No payment with id ${paymentId}.`);
    const now = deps.now();
    const value = await build(current, now, trx);
    if (value === null) return { payment: current, changed: false };
    // Settlement is a state change with an event; a refund is a record on the payment with neither
    // (docs/decisions.md §1.2), so versions stay gap-free in the event stream.
    const bump = stage === 'settled' ? 1 : 0;
    // Assigned, not written as `{ [stage]: value }`: a computed key would widen to an index signature, unchecked.
    const change: StageChange = {};
    change[stage] = value;
    const next: PaymentRow = {
      ...current,
      state_version: current.state_version + bump,
      updated_at: now,
      stages: { ...current.stages, ...change },
    };
    const applied = await updatePaymentAtVersion(trx, current, {
      status: current.status,
      state_version: next.state_version,
      updated_at: now,
      stages: change,
    });
    if (!applied) throw new Error(`payment ${paymentId} changed concurrently at version ${current.state_version}`);
    if (stage === 'settled') await writeEvent(deps, trx, next, 'payment.settled');
    return { payment: next, changed: true };
  };
  return outer ? work(outer) : deps.db.knex.transaction(work);
}

/** Expiry applies on every read: a payment past its deadline is moved to `expired` before anyone sees it. */
export async function expireIfOverdue(deps: LifecycleDeps, payment: PaymentRow): Promise<PaymentRow> {
  if (payment.status !== 'requires_action' || deps.now() < payment.expires_at + (deps.expiryGraceMs ?? 0)) {
    return payment;
  }
  try {
    const { payment: next } = await transitionPayment(deps, payment.id, {
      to: 'expired',
      from: ['requires_action'],
      stages: { expired: { expired_at: iso(Math.max(payment.expires_at, 0)) } },
    });
    return next;
  } catch (err) {
    // Someone moved it first (confirm, cancel): their state wins; read it again.
    if (err instanceof ApiError && err.code === 'invalid_state')
      return (await findPayment(deps.db.knex, payment.id)) ?? payment;
    throw err;
  }
}

/**
 * Test mode's automatic settlement: the whole settlement amount, at once, naming the success transaction (a
 * simulated one's `test:<id>`; null when there is none). Idempotent. Not for a payment paid to a deposit address:
 * a payout carries its money to the merchant, and that payout's finality settles it (§22.16).
 */
export async function settleTestPayment(deps: LifecycleDeps, paymentId: string): Promise<ChangeResult> {
  return recordStage(deps, paymentId, 'settled', async (p, now, trx): Promise<SettledStage | null> => {
    if (p.status !== 'succeeded' || p.live || p.stages.settled !== null) return null;
    if ((await paidToDeposit(trx, p)) !== null) return null;
    const settlement = p.stages.processing?.settlement_amount ?? {
      unit: p.amount_unit,
      value: p.amount_value,
    };
    return { settled_at: iso(now), settlement_amount: settlement, tx_id: p.stages.success?.tx_id ?? null };
  });
}
