import type { PaymentStatus, WebhookEvent } from './events.js';

/**
 * Where an EventProcessor keeps what it has processed. Every method must be atomic on its own (one statement, or
 * one critical section): concurrent deliveries of the same or racing events are resolved by these answers alone.
 * Each `claim`/`advance`/`mark` answers true only to the caller that changed the state.
 */
export interface EventStore {
  /** Records `eventId` as seen. True if it was not recorded before. */
  claimEvent(eventId: string): Promise<boolean>;
  /** Undoes `claimEvent` after a failed handler, so that the gateway's retry is processed. */
  releaseEvent(eventId: string): Promise<void>;
  /** Raises the version kept for `paymentId` to `version`. True if nothing was kept yet or the kept one is lower. */
  advanceVersion(paymentId: string, version: number): Promise<boolean>;
  /**
   * Undoes `advanceVersion` after a failed handler: if the kept version is still `version`, keep `version - 1`, so
   * that the retry of this event is accepted while anything older stays ignored.
   */
  rewindVersion(paymentId: string, version: number): Promise<void>;
  /** Marks `paymentId` as fulfilled. True only for the first caller. */
  markSucceeded(paymentId: string, eventId: string): Promise<boolean>;
  /** Undoes `markSucceeded` by the same event after a failed `onSucceeded`. */
  releaseSucceeded(paymentId: string, eventId: string): Promise<void>;
}

export interface EventProcessorOptions {
  /** Default: a fresh `memoryStore()`, which is right only for a single process that may forget on restart. */
  store?: EventStore;
  /** Called for every event that is neither a duplicate nor older than what was already processed. */
  onStatus?: (status: PaymentStatus, event: WebhookEvent) => unknown;
  /**
   * Called once per payment, for the first event seen with status `succeeded` (even one that is stale for
   * `onStatus`). Fulfil the order here.
   */
  onSucceeded?: (event: WebhookEvent) => unknown;
  /**
   * When true, `onSucceeded` is not called for events with `data.live === false` (test mode payments and the
   * dashboard's test events); `onStatus` still is. Default false.
   */
  requireLive?: boolean;
}

export interface ProcessResult {
  /**
   * `processed`: `onStatus` ran. `duplicate`: this event id was processed before, or is being processed by a
   * concurrent delivery. `stale`: a snapshot at the same or a higher `payment_state_version` was already processed.
   */
  outcome: 'processed' | 'duplicate' | 'stale';
  /** Whether `onSucceeded` ran in this call. */
  fulfilled: boolean;
}

/**
 * Applies the delivery rules to verified events: dedupe on `id`, order by `data.payment_state_version` per
 * `data.payment_id`, drive side effects from `data.status`, fulfil once.
 *
 * If a callback throws, what this call claimed is released and the error is rethrown: answer non-2xx and the
 * gateway's retry processes the event again. Callbacks therefore run at least once per accepted event and
 * `onSucceeded` effectively once per payment, provided a callback that throws has not completed its side effect.
 */
export class EventProcessor {
  readonly #store: EventStore;
  readonly #options: EventProcessorOptions;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: EventProcessorOptions = {}) {
    this.#store = options.store ?? memoryStore();
    this.#options = options;
  }

  /**
   * Events of one payment are processed one after the other within this processor, so its callbacks see them in the
   * order they were accepted. Several processors (processes, machines) sharing a store still never fire
   * `onSucceeded` twice, but their `onStatus` calls for one payment may overlap and finish in any order.
   */
  async process(event: WebhookEvent): Promise<ProcessResult> {
    assertProcessable(event);
    const paymentId = event.data.payment_id;
    const run = () => this.#process(event);
    const result = (this.#queues.get(paymentId) ?? Promise.resolve()).then(run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(paymentId, settled);
    void settled.then(() => {
      if (this.#queues.get(paymentId) === settled) this.#queues.delete(paymentId);
    });
    return result;
  }

  async #process(event: WebhookEvent): Promise<ProcessResult> {
    const { id } = event;
    const { payment_id: paymentId, payment_state_version: version, status } = event.data;
    const store = this.#store;

    if (!(await store.claimEvent(id))) return { outcome: 'duplicate', fulfilled: false };
    let advanced = false;
    let fulfilling = false;
    try {
      // A stale event keeps its claim: it is processed, by being ignored.
      advanced = await store.advanceVersion(paymentId, version);
      if (advanced) await this.#options.onStatus?.(status, event);
      // Fulfilment is not gated by the version: succeeded is terminal, so even a stale snapshot saying so proves the
      // payment succeeded, and it may be the retry of an event whose onSucceeded failed while a newer one (e.g.
      // payment.settled) went through. The marker keeps it to one call per payment.
      if (status === 'succeeded' && (this.#options.requireLive !== true || event.data.live === true)) {
        fulfilling = await store.markSucceeded(paymentId, id);
        if (fulfilling) await this.#options.onSucceeded?.(event);
      }
      return { outcome: advanced ? 'processed' : 'stale', fulfilled: fulfilling };
    } catch (error) {
      if (fulfilling) await store.releaseSucceeded(paymentId, id);
      if (advanced) await store.rewindVersion(paymentId, version);
      await store.releaseEvent(id);
      throw error;
    }
  }
}

function assertProcessable(event: WebhookEvent): void {
  const data = (event as Partial<WebhookEvent> | null)?.data as Partial<WebhookEvent['data']> | undefined;
  if (
    typeof event?.id !== 'string' ||
    typeof data?.payment_id !== 'string' ||
    !Number.isSafeInteger(data.payment_state_version) ||
    (data.payment_state_version as number) < 0 ||
    typeof data.status !== 'string'
  ) {
    throw new TypeError(
      'EventProcessor.process expects a verified webhook event with id, data.payment_id, ' +
        'data.payment_state_version (integer >= 0) and data.status',
    );
  }
}

/** Keeps everything in this process's memory: for tests and single-instance receivers that can afford to forget. */
export function memoryStore(): EventStore {
  const events = new Set<string>();
  const versions = new Map<string, number>();
  const fulfilled = new Map<string, string>();
  return {
    async claimEvent(eventId) {
      if (events.has(eventId)) return false;
      events.add(eventId);
      return true;
    },
    async releaseEvent(eventId) {
      events.delete(eventId);
    },
    async advanceVersion(paymentId, version) {
      const kept = versions.get(paymentId);
      if (kept !== undefined && kept >= version) return false;
      versions.set(paymentId, version);
      return true;
    },
    async rewindVersion(paymentId, version) {
      if (versions.get(paymentId) === version) versions.set(paymentId, version - 1);
    },
    async markSucceeded(paymentId, eventId) {
      if (fulfilled.has(paymentId)) return false;
      fulfilled.set(paymentId, eventId);
      return true;
    },
    async releaseSucceeded(paymentId, eventId) {
      if (fulfilled.get(paymentId) === eventId) fulfilled.delete(paymentId);
    },
  };
}
