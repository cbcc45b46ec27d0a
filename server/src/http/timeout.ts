/**
 * Answers 503 `internal_error` to a request still unanswered after `ms` (docs/decisions.md §12), so a stuck
 * dependency costs the caller a bounded wait and a retryable status rather than a hung connection. The handler
 * may still finish afterwards; its late answer is dropped (see the error handler). Armed for each request by the
 * in-flight count (http/inflight.ts), which clears it when the request closes.
 */
import type { Request, Response } from 'express';
import { ApiError } from '../errors.js';

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set once the timeout answered for the handler. */
    timedOut?: boolean;
  }
}

export function armRequestTimeout(req: Request, res: Response, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    if (res.headersSent) return;
    res.locals.timedOut = true;
    res.locals.log?.warn({ path: req.path, timeoutMs: ms }, 'request timed out');
    const error = new ApiError('internal_error', 'The request took too long and was abandoned; retry.', {
      status: 503,
    });
    // The request body may be unread (a client that stalled mid-body): close rather than try to reuse the socket.
    res.setHeader('Connection', 'close');
    res.status(error.status).json({ code: error.code, message: error.message });
  }, ms);
  timer.unref();
  return timer;
}
