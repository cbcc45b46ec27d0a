/**
 * The contracts' operations, matched once per request. `surfaces` (http/surface.ts) finds the operation of a request
 * under a contract's prefixes and puts it on `res.locals.operation`; that contract's authentication, its router and
 * the request line's route name read it there instead of each matching the path again, and the router hands the
 * request to the operation's handler without an Express router's per-layer matching (BENCHMARKS.md, "Issue 18").
 */
import type { Request, RequestHandler } from 'express';
import { loadContract, templatePattern, type ApiName } from './openapi.js';
import { inSequence } from './sequence.js';

export interface ContractRoute {
  /** The operation's contract operationId. */
  operationId: string;
  /** The contract's path template, e.g. `/v1/dashboard/webhook-deliveries/{deliveryId}`. */
  template: string;
  method: string;
  pattern: RegExp;
  hasBody: boolean;
  /** The header parameters the operation declares, named as in the contract. */
  headers: string[];
  /** The operation says `security: []`: it takes no credential at all (the gateway's Solana Pay operations). */
  open: boolean;
  /** The operation takes the POS access key only (`security: [{PosKey: []}]`): the point-of-sale screen's. */
  posKey: boolean;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** The contract operation of the request's method and path, when there is one (set by `surfaces`). */
    operation?: ContractRoute;
  }
}

interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const paramCount = (template: string) => (template.match(/\{/g) ?? []).length;

/**
 * The operations a contract defines, as exact, case-sensitive matchers (the app routes strictly and case-sensitively
 * too, so the validator matches the same way), a literal segment before a parameter: `/payments/export` must not be
 * read as `/payments/{paymentId}`.
 */
export function contractRoutes(api: ApiName): ContractRoute[] {
  const contract = loadContract(api) as {
    paths?: Record<string, Record<string, unknown>>;
    components?: { parameters?: Record<string, Parameter> };
  };
  const shared = contract.components?.parameters ?? {};
  const resolve = (p: Parameter): Parameter => (p.$ref ? (shared[p.$ref.split('/').pop()!] ?? {}) : p);
  const routes: ContractRoute[] = [];
  for (const [path, item] of Object.entries(contract.paths ?? {})) {
    const pattern = templatePattern(path);
    for (const method of METHODS) {
      const operation = item[method] as
        { operationId?: string; requestBody?: unknown; parameters?: Parameter[]; security?: unknown[] } | undefined;
      if (operation) {
        const headers = (operation.parameters ?? [])
          .map(resolve)
          .filter((p) => p.in === 'header' && p.name)
          .map((p) => p.name!);
        routes.push({
          operationId: operation.operationId ?? '',
          template: path,
          method: method.toUpperCase(),
          pattern,
          hasBody: !!operation.requestBody,
          headers,
          open: Array.isArray(operation.security) && operation.security.length === 0,
          posKey: Array.isArray(operation.security) && JSON.stringify(operation.security) === '[{"PosKey":[]}]',
        });
      }
    }
  }
  return routes.sort((a, b) => paramCount(a.template) - paramCount(b.template));
}

/**
 * The operation of the request's path and method. The path decides first, as the validator decides: a path whose
 * template has no operation for the method has none (the validator answers 405), even when a template with a
 * parameter would take the path for that method.
 */
export function matchRoute(routes: ContractRoute[], req: Request): ContractRoute | undefined {
  // Express answers HEAD with the GET route, so a HEAD must be authenticated like the GET it runs.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const path = req.path;
  const byPath = routes.find((r) => r.pattern.test(path));
  if (!byPath) return undefined;
  if (byPath.method === method) return byPath;
  return routes.find((r) => r.template === byPath.template && r.method === method);
}

/**
 * What a contract's router runs for an operation: its handler, or the middlewares that end in it. Typed to take any
 * handler's own parameter and body types (each handler types its operation from the generated contract types).
 */
type AnyHandler = (req: never, res: never, next: never) => unknown;
type OperationHandler = AnyHandler | AnyHandler[];

interface Validated {
  openapi?: { schema?: { operationId?: string } };
}

/**
 * A contract's router: `before` (the rate limit), then the handler of the request's operation. Every operation of the
 * contract must have a handler and every handler an operation, checked when the app is built. The operation is the
 * one `surfaces` matched, and it must be the one whose schema the validator checked the request against (the app's
 * strict, case-sensitive routing makes them the same); a request for which they differ is refused as a server error
 * rather than handed to a handler whose input nobody validated.
 */
export function contractRouter<Operations>(
  api: ApiName,
  before: RequestHandler[],
  handlers: { [K in keyof Operations]?: OperationHandler },
): RequestHandler {
  const table = new Map<string, RequestHandler>();
  const operations = new Set(contractRoutes(api).map((r) => r.operationId));
  for (const [operationId, handler] of Object.entries(handlers) as [string, OperationHandler][]) {
    if (!operations.has(operationId))
      throw new Error(`${api} router: ${operationId} is not an operation of the contract`);
    table.set(operationId, inSequence([...before, ...([handler].flat() as RequestHandler[])]));
  }
  const missing = [...operations].filter((id) => !table.has(id));
  if (missing.length) throw new Error(`${api} router: no handler for ${missing.join(', ')}`);
  return (req, res, next) => {
    const operation = res.locals.operation;
    const run = operation && table.get(operation.operationId);
    if (!run) return next();
    const validated = (req as Validated).openapi?.schema?.operationId;
    if (validated !== operation.operationId) {
      return next(new Error(`${req.method} ${req.path} matched ${operation.operationId}, validated as ${validated}`));
    }
    return run(req, res, next);
  };
}
