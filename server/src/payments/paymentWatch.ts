/**
 * Waking long polls when a payment changes. Changes made in this process wake their waiters at once through the
 * lifecycle's event hook (after commit, so a waiter never reads a state that could still roll back); changes made
 * by another process (a worker, another API instance) are seen by the waiter's own periodic re-read.
 */
import { EventEmitter } from 'node:events';
import type { EventHook } from './lifecycle.js';

export class PaymentNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    // One listener per waiting request: many concurrent long polls are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  /** Add to the runtime's `eventHooks`. */
  readonly hook: EventHook = async (trx, event) => {
    trx.executionPromise.then(
      () => this.emitter.emit(event.payment_id),
      () => undefined,
    );
  };

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
