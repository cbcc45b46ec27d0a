import express, { type Express } from 'express';
import { docsRouter } from './http/docs.js';
import { dashboardAuth } from './http/dashboardAuth.js';
import { errorHandler, notFoundHandler } from './http/errorHandler.js';
import { gatewayAuth } from './http/gatewayAuth.js';
import { InFlightRequests } from './http/inflight.js';
import { merchantAuth } from './http/merchantAuth.js';
import { contractValidator, DEFAULT_DOCS_DIR } from './http/openapi.js';
import { opsRouter } from './http/ops.js';
import { requestContext } from './http/requestContext.js';
import { gatewayCors, securityHeaders } from './http/security.js';
import { inSequence, onlyFor, surfaces } from './http/surface.js';
import { checkoutRouter } from './routes/checkout/index.js';
import { collectRouter } from './routes/collect/index.js';
import { refundPageRouter } from './routes/refundPage/index.js';
import { posPageRouter } from './routes/posPage/index.js';
import { linkPageRouter } from './routes/linkPage/index.js';
import { invoicePageRouter } from './routes/invoicePage/index.js';
import { logosRouter } from './routes/logos/index.js';
import { dashboardRouter } from './routes/dashboard/index.js';
import { dashboardAppRouter } from './routes/dashboardApp/index.js';
import { devRouter } from './routes/dev/index.js';
import { gatewayRouter } from './routes/gateway/index.js';
import { merchantRouter } from './routes/merchant/index.js';
import type { Runtime } from './runtime.js';

/** Request bodies above this are refused with 413 (docs/decisions.md §5: an option id alone may be 64 KiB). */
export const BODY_LIMIT = '256kb';

export interface AppDeps {
  runtime: Runtime;
  /** Turn on response validation against the contracts (the test configuration). */
  validateResponses?: boolean;
  docsDir?: string;
  /** The built web pages; the default is the dist/ of the @paygate/web package that Node resolves from the server. */
  webDir?: string;
  /** The server's count of requests in flight, which its shutdown waits for. */
  requests?: InFlightRequests;
}

export function createApp(deps: AppDeps): Express {
  const { runtime } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', runtime.config.trustProxy);
  // The contract validator matches paths by these settings: strict and case-sensitive, as the contracts' operations
  // are matched (http/operations.ts), so both always name the same operation.
  app.set('strict routing', true);
  app.set('case sensitive routing', true);
  // No ETag on answers: the contracts define no conditional request (a 304 would be an answer they do not list), and
  // hashing every body costs each answer a SHA-1 and a second write (docs/decisions.md §23.9). Static files (the web
  // pages' assets) keep theirs: express.static sets its own.
  app.set('etag', false);
  const requests = deps.requests ?? new InFlightRequests();

  // Each contract's path: authentication before the schema (docs/decisions.md §2; it leaves routes outside the
  // contract to the validator), the validator, then the router, which rate-limits before any lookup (§6). The dev
  // routes exist only while the local chains run.
  const validateResponses = deps.validateResponses ?? false;
  const local = runtime.chains?.local ?? null;
  const contracts = surfaces({
    gateway: [gatewayAuth(runtime), contractValidator('gateway', validateResponses), gatewayRouter(runtime)],
    merchant: [merchantAuth(runtime), contractValidator('merchant', validateResponses), merchantRouter(runtime)],
    dashboard: [dashboardAuth(runtime), contractValidator('dashboard', validateResponses), dashboardRouter(runtime)],
    ...(local ? { dev: [contractValidator('dev', validateResponses), devRouter(local)] } : {}),
  });
  // Mounted as one middleware, not one Express layer each: none of them is mounted on a path, and a layer costs more
  // than most of them (http/surface.ts). The order is the request path of ARCHITECTURE.md.
  app.use(
    inSequence([
      requestContext({ logger: runtime.logger, metrics: runtime.metrics }),
      securityHeaders(runtime.config),
      // Probes and scrapes answer during a shutdown too (readiness then says so), and are not waited for. This
      // router and the docs' match regardless of case and a trailing slash, hence the loose tests: they only skip
      // requests a router would ignore.
      onlyFor((path) => /^\/(healthz|readyz|metrics)/i.test(path), opsRouter(runtime, requests, validateResponses)),
      requests.tracking(runtime.config.requestTimeoutMs),
      onlyFor((path) => /^\/docs/i.test(path), docsRouter(deps.docsDir ?? DEFAULT_DOCS_DIR)),
      // Before the validators, which would answer a preflight OPTIONS with 405.
      onlyFor((path) => /^\/v1\/gateway(\/|$)/i.test(path), gatewayCors(runtime.config)),
      express.json({ limit: BODY_LIMIT }),
      contracts,
    ]),
  );
  // The data-collection form: a web page and its post, outside the contracts and their validators (§16).
  app.use(collectRouter(runtime, deps.webDir));
  // The hosted checkout page at the payments' gatewayUrl, and its assets (web/).
  app.use(checkoutRouter(runtime, deps.webDir));
  // The merchant dashboard web app at /dashboard (History API routes) and its assets (web/).
  app.use(dashboardAppRouter(runtime, deps.webDir));
  // A refund's claim page (§22.6): the same page for every refund; the token stays in the link's fragment.
  app.use(refundPageRouter(deps.webDir));
  // The point-of-sale screen (§30.15): the same page for every terminal; its key stays on the device.
  app.use(posPageRouter(deps.webDir));
  // A payment link's page (§30.6): each visit continues into the checkout with a payment made from the link.
  app.use(linkPageRouter(runtime, deps.webDir));
  // An invoice's printable page with its Pay button (§30.11).
  app.use(invoicePageRouter(deps.webDir));
  // Merchants' uploaded logos (§26.23), on this origin so the checkout's CSP (img-src 'self') shows them.
  app.use(logosRouter(runtime));

  app.use(notFoundHandler);
  app.use(errorHandler(runtime.logger));
  return app;
}
