/**
 * The operator's endpoints: liveness, readiness and Prometheus metrics, described by their own contract
 * (openapi/ops, decisions.md §27.29). They sit before the body parser and the request validators, so a broken
 * dependency cannot stop them from answering; they take no input, so there is nothing to validate. Their answers
 * are validated against the contract in the test configuration (`validateResponses`), like every other surface's.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type Express, type RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { runReadiness } from '../observability/readiness.js';
import type { operations } from '../generated/ops.js';
import { errorHandler, notFoundHandler } from './errorHandler.js';
import { contractValidator } from './openapi.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../observability/metrics.js';
import type { ReadinessCheck } from '../observability/readiness.js';
import type { InFlightRequests } from './inflight.js';

/** What the operator's endpoints read. */
export interface OpsDeps {
  config: Pick<Config, 'metricsToken' | 'metricsPort' | 'env'>;
  metrics: Pick<Metrics, 'registry'>;
  readiness: ReadinessCheck[];
  logger: Logger;
}

type HealthBody = operations['getHealth']['responses'][200]['content']['application/json'];
type ReadinessBody =
  | operations['getReadiness']['responses'][200]['content']['application/json']
  | operations['getReadiness']['responses'][503]['content']['application/json'];
type MetricsText = operations['getMetrics']['responses'][200]['content']['text/plain; version=0.0.4; charset=utf-8'];

/**
 * The ops contract's response validator, for the test configuration only: for GET, the only method the contract
 * describes (any other goes on to the 404 it always got, rather than to the validator's 405).
 */
function opsResponseValidator(): RequestHandler {
  const validate = contractValidator('ops', true, false);
  return (req, res, next) => (req.method === 'GET' ? validate(req, res, next) : next());
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time (as digests, so lengths leak nothing). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer ([\x21-\x7E]+)$/.exec(header ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export function metricsHandler(
  runtime: Pick<OpsDeps, 'config' | 'metrics'>,
): RequestHandler<Record<string, never>, MetricsText> {
  const token = runtime.config.metricsToken;
  return async (req, res) => {
    if (token !== null && !bearerMatches(req.get('Authorization'), token)) {
      throw new ApiError('unauthorized', 'The metrics token is missing or wrong.', {
        headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      });
    }
    const { registry } = runtime.metrics;
    const body: MetricsText = await registry.metrics();
    res.set('Content-Type', registry.contentType).set('Cache-Control', 'no-store').send(body);
  };
}

/**
 * `/metrics` on the API port unless it has a port of its own. Outside development the API port is usually public,
 * so there it needs the token: payment and webhook volumes are business data.
 */
export function servesMetricsOnApiPort(config: OpsDeps['config']): boolean {
  return config.metricsPort === null && (config.env === 'development' || config.metricsToken !== null);
}

export function opsRouter(runtime: OpsDeps, requests: InFlightRequests, validateResponses = false): Router {
  const router = Router();
  if (validateResponses) router.use(opsResponseValidator());
  // Liveness: the process answers. Nothing else is checked, so a database outage never gets the process restarted.
  router.get<'/healthz', Record<string, never>, HealthBody>('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get<'/readyz', Record<string, never>, ReadinessBody>('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    if (requests.isDraining) {
      res.status(503).json({ status: 'shutting_down', checks: {} });
      return;
    }
    const readiness = await runReadiness(runtime.readiness, res.locals.log ?? runtime.logger);
    // A chain with no endpoint answering is `degraded`, not a reason to leave the load balancer: every other chain
    // and the dashboard still serve, and the chain's options say "network temporarily unavailable" (§27.9, §27.11).
    res.status(readiness.ready ? 200 : 503).json({
      status: readiness.ready ? (readiness.degraded ? 'degraded' : 'ready') : 'not_ready',
      checks: readiness.checks,
    });
  });
  if (servesMetricsOnApiPort(runtime.config)) router.get('/metrics', metricsHandler(runtime));
  return router;
}

/** The app behind METRICS_PORT: `/metrics` and nothing else. */
export function metricsApp(runtime: OpsDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', metricsHandler(runtime));
  app.use(notFoundHandler);
  app.use(errorHandler(runtime.logger));
  return app;
}
