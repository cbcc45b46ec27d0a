/**
 * Counts the requests being served, so a shutdown can wait for exactly those. Once draining, new requests (on
 * connections that were already open) get 503 and every answer carries `Connection: close`, so keep-alive clients
 * move to another instance instead of holding this one open. It also arms each request's timeout (http/timeout.ts):
 * one listener per request ends both when the request closes.
 */
import type { RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';
import { armRequestTimeout } from './timeout.js';

export class InFlightRequests {
  private readonly active = new Set<Response>();
  private waiters: (() => void)[] = [];
  private draining = false;

  get count(): number {
    return this.active.size;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Counts the request, and answers it 503 if it is still unanswered after `timeoutMs`. */
  tracking(timeoutMs: number): RequestHandler {
    return (req, res, next) => {
      if (this.draining) {
        res.setHeader('Connection', 'close');
        return next(new ApiError('internal_error', 'The server is shutting down; retry.', { status: 503 }));
      }
      this.active.add(res);
      const timer = armRequestTimeout(req, res, timeoutMs);
      res.on('close', () => {
        clearTimeout(timer);
        this.active.delete(res);
        if (this.active.size === 0) this.wake();
      });
      next();
    };
  }

  /** Refuses new requests from now on; the ones in flight go on. */
  drain(): void {
    this.draining = true;
    for (const res of this.active) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /** Resolves once no request is in flight. */
  idle(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
