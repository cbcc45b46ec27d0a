import type { RequestHandler } from 'express';

/**
 * Middlewares run one after the other as Express runs them (errors, thrown or rejected, go to `next`), with one
 * `next` callback per request rather than one per middleware: a request's allocations are what the shipped server
 * spends its garbage collection on (BENCHMARKS.md, api).
 */
export function inSequence(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (err?: unknown): void => {
      // As in Express, 'route' from a middleware only moves on to the next one; 'router' goes out to `next`.
      if (err && err !== 'route') return next(err);
      const handler = handlers[index++];
      if (!handler) return next();
      try {
        const result = handler(req, res, step) as unknown;
        if (result instanceof Promise) result.catch((e: unknown) => next(e ?? new Error('Rejected promise')));
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
