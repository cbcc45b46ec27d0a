/**
 * Mounting without Express layers. Express 5 spends more on each layer of its router than most of our middlewares
 * spend on a request, so middlewares that are mounted without a path run in sequence inside one layer, and each
 * contract's authentication, validator and router are entered only by the requests under the paths that contract
 * owns (http/openapi.ts `ownsPath`). Each of them ignores every other path anyway, so a request passes exactly the
 * middlewares it did when they were all mounted one after the other, in the same order.
 */
import type { RequestHandler } from 'express';
import { ownsPath, type ApiName } from './openapi.js';
import { contractRoutes, matchRoute } from './operations.js';
import { inSequence } from './sequence.js';

// A leaf of its own (sequence.ts) so that openapi.ts and operations.ts use it without importing this file.
export { inSequence };

/**
 * Each contract's middlewares, for the requests under its prefixes; every other request goes on untouched. The
 * request's operation is matched here, once, for all of them (`res.locals.operation`, http/operations.ts).
 */
export function surfaces(paths: Partial<Record<ApiName, (RequestHandler | RequestHandler[])[]>>): RequestHandler {
  const owners = Object.entries(paths).map(([api, handlers]) => ({
    api: api as ApiName,
    routes: contractRoutes(api as ApiName),
    run: inSequence(handlers.flat()),
  }));
  return (req, res, next) => {
    const owner = owners.find((o) => ownsPath(o.api, req.path));
    if (!owner) return next();
    const operation = matchRoute(owner.routes, req);
    if (operation) res.locals.operation = operation;
    return owner.run(req, res, next);
  };
}

/** `handler` for the requests `applies` accepts; it must accept every request the handler would act on. */
export function onlyFor(applies: (path: string) => boolean, handler: RequestHandler): RequestHandler {
  return (req, res, next) => (applies(req.path) ? handler(req, res, next) : next());
}
