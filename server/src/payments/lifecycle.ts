/**
 * The one place that changes a payment. Every change runs in one transaction that (1) checks the transition
 * against the state machine, (2) bumps payment_state_version by exactly one, (3) writes the event with the full
 * snapshot to the outbox, and (4) adds the jobs the change causes. Nothing else writes to `payments`.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Database } from '../db/connect.js';
import { createBatcher, type CreateBatcher, type CreatedWrites } from '../db/createBatcher.js';
import { insertEvents, type EventRow } from '../db/queries/events.js';
import { insertCreates, type CreateRows } from '../db/queries/creates.js';
import { scopeId, type IdempotencyScope } from '../db/queries/idempotencyKeys.js';
import { findPayment, updatePaymentAtVersion, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import type { JobQueue } from '../jobs/types.js';
import type { Observer } from '../observability/observer.js';
import { iso, toSnapshot, WEBHOOK_API_VERSION, type WebhookEvent } from './snapshot.js';
import { noStages, type SettledStage, type StageChange } from '../db/queries/paymentStages.js';
import { paidToDeposit } from './paidToDeposit.js';
import { detailColumns, NO_DETAILS, type PaymentDetails } from './details.js';
import { sealedEventPayload } from './eventPayload.js';
import { searchTermsOf } from './searchTerms.js';
import { canTransition, eventTypeOf, type PaymentStatus, type WebhookEventType } from './stateMachine.js';

/** Called inside the transaction of every event, e.g. to enqueue webhook deliveries. */
export type EventHook = ((trx: Knex.Transaction, event: EventRow, envelope: WebhookEvent) => Promise<void>) & {
  /** What the hook writes for a created payment, which decides how creates may commit (db/createBatcher.ts). */
  onCreated?: CreatedWrites;
};

/** The runtime's group commit of creates (db/createBatcher.ts), built by `paymentCreates`. */
export type PaymentCreates = CreateBatcher<CreateItem, PaymentRow | null>;

export interface LifecycleDeps {
  db: Database;
  jobs: JobQueue;
  now: () => number;
  logger: Logger;
  eventHooks: EventHook[];
  /** Where creates outside a caller's transaction go (runtime.ts builds it with `paymentCreates`). */
  creates: PaymentCreates;
  /** Seals a buyer and the events of a payment with one; opens them for snapshots (docs/decisions.md §30.3). */
  secretBox: SecretBox;
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
  deps: Pick<LifecycleDeps, 'observer'>,
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

function eventOf(
  deps: Pick<LifecycleDeps, 'now' | 'secretBox'>,
  row: PaymentRow,
  type: WebhookEventType,
): PendingEvent {
  const now = deps.now();
  const envelope: WebhookEvent = {
    id: newId.event(),
    type,
    api_version: WEBHOOK_API_VERSION,
    created_at: iso(now),
    data: toSnapshot(row, deps.secretBox),
  };
  const event: EventRow = {
    id: envelope.id,
    payment_id: row.id,
    merchant_id: row.merchant_id,
    live: row.live,
    type,
    state_version: row.state_version,
    created_at: now,
    // A buyer's email and name would otherwise stay in plaintext in the payment's history (§30.3).
    ...(row.buyer_sealed ? sealedEventPayload(deps.secretBox, envelope) : { payload: JSON.stringify(envelope) }),
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
async function runEventHooks(
  deps: Pick<LifecycleDeps, 'eventHooks'>,
  trx: Knex.Transaction,
  pending: PendingEvent[],
): Promise<void> {
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
  /** What was sold (payments/details.ts, checked); none when absent. */
  details?: PaymentDetails;
  /** The payment link it comes from (links/visits.ts writes the column in the create's transaction). */
  linkId?: string;
}

function newPaymentRow(deps: Omit<LifecycleDeps, 'creates'>, input: NewPayment): PaymentRow {
  const now = deps.now();
  const id = newId.payment();
  return {
    id,
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
    ...(input.linkId === undefined ? {} : { link_id: input.linkId }),
    stages: noStages(),
    ...detailColumns(deps.secretBox, id, input.details ?? NO_DETAILS),
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

export interface CreateItem {
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

function prepareCreates(deps: Omit<LifecycleDeps, 'creates'>, items: CreateItem[]): PreparedCreates {
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
    const details = items[i]!.input.details;
    const terms = details ? searchTermsOf(details) : [];
    const key = items[i]!.key;
    if (!key) return { payment, event, terms };
    const answer = key.answer(all[i]!);
    return {
      payment,
      event,
      terms,
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
  deps: Omit<LifecycleDeps, 'creates'>,
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
 * The group commit of creates for these deps: their clock, their hooks, their observer. The runtime builds one
 * (runtime.ts); a caller with other hooks or another database builds its own.
 */
export function paymentCreates(deps: Omit<LifecycleDeps, 'creates'>): PaymentCreates {
  return createBatcher<CreateItem, PaymentRow | null>(deps.db, {
    inTransaction: (trx, items) => insertNewPayments(deps, trx, items),
    prepareAlone: (items) => {
      const prepared = prepareCreates(deps, items);
      return {
        rows: prepared.rows,
        answers: (inserted) => {
          const created = createdRows(prepared, inserted);
          for (const row of created)
            if (row) deps.observer?.paymentTransition({ from: null, to: row.status, live: row.live });
          return created;
        },
      };
    },
    ownerOf: ({ input }) => ({ merchantId: input.merchantId, live: input.live }),
    hooks: deps.eventHooks,
  });
}

export async function createPayment(
  deps: LifecycleDeps,
  input: NewPayment,
  /** The caller's transaction, when the payment must commit together with its own writes. */
  trx?: Knex.Transaction,
): Promise<PaymentRow> {
  if (trx) return (await insertNewPayments(deps, trx, [{ input }]))[0]!;
  return (await deps.creates.add({ input }))!;
}

/** Creates a payment and stores its key with the answer, in the group commit; null (nothing created) when the key is taken. */
export async function createPaymentWithKey(
  deps: LifecycleDeps,
  input: NewPayment,
  key: KeyedCreate,
): Promise<PaymentRow | null> {
  return deps.creates.add({ input, key });
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
