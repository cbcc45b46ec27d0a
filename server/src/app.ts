import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { docsRouter } from './http/docs.js';
import { dashboardAuth } from './http/dashboardAuth.js';
import { errorHandler, notFoundHandler } from './http/errorHandler.js';
import { gatewayAuth } from './http/gatewayAuth.js';
import { InFlightRequests } from './http/inflight.js';
import { merchantAuth } from './http/merchantAuth.js';
import { contractValidator, type ApiName } from './http/openapi.js';
import { opsRouter } from './http/ops.js';
import { requestContext } from './http/requestContext.js';
import { gatewayCors, securityHeaders } from './http/security.js';
import { requestTimeout } from './http/timeout.js';
import { collectRouter } from './routes/collect/index.js';
import { dashboardRouter } from './routes/dashboard/index.js';
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
  /** The server's count of requests in flight, which its shutdown waits for. */
  requests?: InFlightRequests;
}

const defaultDocsDir = join(dirname(fileURLToPath(import.meta.url)), '../../dist/docs');

export function createApp(deps: AppDeps): Express {
  const { runtime } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', runtime.config.trustProxy);
  const requests = deps.requests ?? new InFlightRequests();

  app.use(requestContext({ logger: runtime.logger, metrics: runtime.metrics }));
  app.use(securityHeaders(runtime.config));
  // Probes and scrapes answer during a shutdown too (readiness then says so), and are not waited for.
  app.use(opsRouter(runtime, requests));
  app.use(requests.middleware);
  app.use(requestTimeout(runtime.config.requestTimeoutMs));
  app.use(docsRouter(deps.docsDir ?? defaultDocsDir));
  // Before the validators, which would answer a preflight OPTIONS with 405.
  app.use('/v1/gateway', gatewayCors(runtime.config));

  app.use(express.json({ limit: BODY_LIMIT }));
  // Authentication before the schema (docs/decisions.md §2); it leaves routes outside the contract to the validator.
  app.use(gatewayAuth(runtime));
  app.use(merchantAuth(runtime));
  app.use(dashboardAuth(runtime));
  // The dev routes exist only while the local chains run.
  const local = runtime.chains?.local ?? null;
  const apis: ApiName[] = ['gateway', 'merchant', 'dashboard', ...(local ? ['dev' as const] : [])];
  for (const api of apis) {
    app.use(contractValidator(api, deps.validateResponses ?? false));
  }
  app.use(gatewayRouter(runtime));
  app.use(merchantRouter(runtime));
  app.use(dashboardRouter(runtime));
  if (local) app.use(devRouter(local));
  // The data-collection form: a web page and its post, outside the contracts and their validators (§16).
  app.use(collectRouter(runtime));

  app.use(notFoundHandler);
  app.use(errorHandler(runtime.logger));
  return app;
}
