import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { pino, type Logger } from 'pino';
import type { Config } from './config.js';
import { docsRouter } from './http/docs.js';
import { errorHandler, notFoundHandler } from './http/errorHandler.js';
import { contractValidator } from './http/openapi.js';

/** Request bodies above this are refused with 413 (docs/decisions.md §5: an option id alone may be 64 KiB). */
export const BODY_LIMIT = '256kb';

export interface AppDeps {
  config: Config;
  logger?: Logger;
  /** Milliseconds since the epoch; injected so that time-based rules are tested without sleeping. */
  now?: () => number;
  /** Turn on response validation against the contracts (the test configuration). */
  validateResponses?: boolean;
  docsDir?: string;
}

const defaultDocsDir = join(dirname(fileURLToPath(import.meta.url)), '../../dist/docs');

export function createApp(deps: AppDeps): Express {
  const logger = deps.logger ?? pino({ level: deps.config.logLevel });
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(docsRouter(deps.docsDir ?? defaultDocsDir));

  app.use(express.json({ limit: BODY_LIMIT }));
  // The dev routes exist only while the local chains run.
  const apis =
    deps.config.chains === 'local' ? (['gateway', 'merchant', 'dev'] as const) : (['gateway', 'merchant'] as const);
  for (const api of apis) {
    app.use(contractValidator(api, deps.validateResponses ?? false));
  }

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
