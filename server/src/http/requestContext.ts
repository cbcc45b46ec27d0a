/**
 * First on every request: a request id (the caller's `X-Request-Id` when it is sane, else a new UUID, echoed back),
 * a child logger carrying it, and on completion one log line and one histogram sample labelled with the route
 * template, so a dashboard groups `/v1/merchant/payment/pay_…` under one series.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { unredactedChild } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { loadContract, ownsPath, templatePattern, type ApiName } from './openapi.js';

declare module 'express-serve-static-core' {
  interface Locals {
    requestId?: string;
    /** The runtime's logger with this request's id. */
    log?: Logger;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Printable ASCII, at most 200 characters: anything else could forge log lines or bloat them. */
const ACCEPTED_ID = /^[\x21-\x7E](?:[\x20-\x7E]{0,198}[\x21-\x7E])?$/;

export function requestIdOf(header: string | undefined): string {
  return header !== undefined && ACCEPTED_ID.test(header) ? header : randomUUID();
}

/** Probes and scrapes: logged at debug level while they succeed, so they do not drown the request log. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

interface Template {
  pattern: RegExp;
  template: string;
}

const APIS: ApiName[] = ['gateway', 'merchant', 'dashboard', 'dev'];

/**
 * The path templates of every contract, whether or not its routes are mounted, most specific first, by contract:
 * a path can only be an operation of the contract that owns it (http/openapi.ts `ownsPath`), so only that
 * contract's templates are tried.
 */
function contractTemplates(): Map<ApiName, Template[]> {
  const byApi = new Map<ApiName, Template[]>();
  for (const api of APIS) {
    const paths = (loadContract(api) as { paths?: Record<string, unknown> }).paths ?? {};
    const templates = Object.keys(paths).map((template) => ({ pattern: templatePattern(template), template }));
    // A literal segment beats a parameter: /payment/list must not be read as /payment/{id}.
    byApi.set(
      api,
      templates.sort((a, b) => paramCount(a.template) - paramCount(b.template)),
    );
  }
  return byApi;
}

const paramCount = (template: string) => (template.match(/\{/g) ?? []).length;

/**
 * The contract's template when the path is one of its operations, even when the request was refused before
 * routing (auth, body size); else the Express route; else `unmatched`, which keeps the label set bounded
 * whatever paths scanners try.
 */
export function routeNamer(): (req: Request, res: Response) => string {
  const templates = contractTemplates();
  return (req, res) => {
    // Matched once already when it is an operation (http/operations.ts); the rest are refusals and pages.
    const operation = res.locals.operation;
    if (operation) return operation.template;
    const path = req.originalUrl.split('?')[0] ?? '';
    const api = APIS.find((a) => ownsPath(a, path));
    const match = api ? templates.get(api)!.find((t) => t.pattern.test(path)) : undefined;
    if (match) return match.template;
    const route = req.route as { path?: unknown } | undefined;
    if (typeof route?.path === 'string') return `${req.baseUrl}${route.path}`;
    return 'unmatched';
  };
}

/** nginx's code for a request whose client went away before the answer. */
const CLIENT_CLOSED = 499;

export function requestContext(deps: { logger: Logger; metrics: Metrics }): RequestHandler {
  const nameRoute = routeNamer();
  // The request line's fields are all built below from known values, none of them a secret or personal data.
  const lineLogger = unredactedChild(deps.logger);
  return (req, res, next) => {
    const started = performance.now();
    const requestId = requestIdOf(req.get(REQUEST_ID_HEADER));
    res.locals.requestId = requestId;
    // The child logger is made when something logs: most requests log nothing but the request line below.
    let log: Logger | undefined;
    Object.defineProperty(res.locals, 'log', {
      configurable: true,
      enumerable: true,
      get: () => (log ??= deps.logger.child({ reqId: requestId })),
      set: (value: Logger) => (log = value),
    });
    res.setHeader(REQUEST_ID_HEADER, requestId);

    const complete = () => {
      const seconds = (performance.now() - started) / 1000;
      const route = nameRoute(req, res);
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      deps.metrics.observeHttp({ method: req.method, route, status, seconds });
      const level = status >= 500 ? 'error' : QUIET_PATHS.has(req.path) && status < 400 ? 'debug' : 'info';
      if (!deps.logger.isLevelEnabled(level)) return;
      const line = {
        method: req.method,
        route,
        path: req.path,
        status,
        ms: Math.round(seconds * 1000 * 10) / 10,
        ip: req.ip,
        ...merchantOf(res),
        ...gatewayOf(res),
      };
      // Without a child, the line carries the child's binding first, where the child would have written it.
      if (log) log[level](line, 'request');
      else {
        // Follows the runtime's logger if its level was changed after start.
        if (lineLogger.level !== deps.logger.level) lineLogger.level = deps.logger.level;
        lineLogger[level]({ reqId: requestId, ...line }, 'request');
      }
    };
    // 'close' comes after 'finish' (which set writableFinished), or alone when the client went away first.
    res.on('close', complete);
    next();
  };
}

function merchantOf(res: Response): { merchant?: string } {
  const merchant = (res.locals as { merchantAuth?: { merchant?: { id?: string } } }).merchantAuth?.merchant?.id;
  return merchant ? { merchant } : {};
}

interface GatewayCaller {
  credential?: { id?: string };
  clientId?: string | null;
  sdk?: { name: string | null; version: string | null; platform: string | null };
}

/** The gateway caller and its Sdk-* headers, which the contract says are for logs and support only. */
function gatewayOf(res: Response): { credential?: string; clientId?: string; sdk?: GatewayCaller['sdk'] } {
  const auth = (res.locals as { gatewayAuth?: GatewayCaller }).gatewayAuth;
  if (!auth) return {};
  return {
    ...(auth.credential?.id ? { credential: auth.credential.id } : {}),
    ...(auth.clientId ? { clientId: auth.clientId } : {}),
    ...(auth.sdk ? { sdk: auth.sdk } : {}),
  };
}
