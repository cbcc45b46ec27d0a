import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { docsRouter } from './http/docs.js';
import { errorHandler, notFoundHandler } from './http/errorHandler.js';
import { merchantAuth } from './http/merchantAuth.js';
import { contractValidator, type ApiName } from './http/openapi.js';
import { merchantRouter } from './routes/merchant/index.js';
import type { Runtime } from './runtime.js';

/** Request bodies above this are refused with 413 (docs/decisions.md §5: an option id alone may be 64 KiB). */
export const BODY_LIMIT = '256kb';

export interface AppDeps {
  runtime: Runtime;
  /** Turn on response validation against the contracts (the test configuration). */
  validateResponses?: boolean;
  docsDir?: string;
}

const defaultDocsDir = join(dirname(fileURLToPath(import.meta.url)), '../../dist/docs');

export function createApp(deps: AppDeps): Express {
  const { runtime } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(docsRouter(deps.docsDir ?? defaultDocsDir));

  app.use(express.json({ limit: BODY_LIMIT }));
  // Authentication before the schema (docs/decisions.md §2); it leaves routes outside the contract to the validator.
  app.use(merchantAuth(runtime));
  // The dev routes exist only while the local chains run.
  const apis: ApiName[] = runtime.config.chains === 'local' ? ['gateway', 'merchant', 'dev'] : ['gateway', 'merchant'];
  for (const api of apis) {
    app.use(contractValidator(api, deps.validateResponses ?? false));
  }
  app.use(merchantRouter(runtime));

  app.use(notFoundHandler);
  app.use(errorHandler(runtime.logger));
  return app;
}
