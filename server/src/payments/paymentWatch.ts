/**
 * Waking long polls when a payment changes. Changes made in this process wake their waiters at once through the
 * lifecycle's event hook (after commit, so a waiter never reads a state that could still roll back); changes made
 * by another process (a worker, another API instance) are seen by the waiter's own periodic re-read.
 */
import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import type { EventRow } from '../db/queries/events.js';
import type { EventHook } from './lifecycle.js';

export class PaymentNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per waiting request: many concurrent long polls are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  /**
   * Add to the runtime's `eventHooks`. Nothing to do for a created payment: no one can wait on a payment before its
   * create has answered with its id.
   */
  readonly hook: EventHook = Object.assign(
    async (trx: Knex.Transaction, event: EventRow) => {
      trx.executionPromise.then(
        () => this.emitter.emit(event.payment_id),
        () => undefined,
      );
    },
    { onCreated: 'nothing' as const },
  );

  /** Resolves when `paymentId` changes in this process, after `ms`, or when `signal` aborts, whichever is first. */
  wait(paymentId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(paymentId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.emitter.on(paymentId, done);
      signal.addEventListener('abort', done, { once: true });
      if (signal.aborted) done();
    });
  }

  /** Requests waiting right now (tests check that a disconnected client stops waiting). */
  get waiting(): number {
    return this.emitter.eventNames().reduce((n, name) => n + this.emitter.listenerCount(name), 0);
  }
}
