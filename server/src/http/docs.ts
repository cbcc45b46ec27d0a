import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from 'express';
import { ApiError } from '../errors.js';

const titles: Record<string, string> = {
  gateway: 'Gateway API (wallets)',
  merchant: 'Merchant API and webhooks',
  dev: 'Dev API (local chains only)',
  dashboard: 'Dashboard API (the merchant dashboard: people, payments, keys, settings, webhooks)',
  ops: 'Operations API (liveness, readiness and metrics)',
};

/** Serves the self-contained Redoc references built by `npm run docs` into @paygate/openapi's dist/docs. */
export function docsRouter(docsDir: string): Router {
  const router = Router();
  router.get('/docs', (_req, res) => {
    const links = Object.entries(titles)
      .map(([api, title]) => `<li><a href="/docs/${api}">${title}</a></li>`)
      .join('');
    res
      .type('html')
      .send(
        `<!doctype html><html><head><meta charset="utf-8"><title>Paygate API reference</title></head><body><h1>Paygate API reference</h1><ul>${links}</ul></body></html>`,
      );
  });
  router.get('/docs/:api', (req, res, next) => {
    const api = req.params.api;
    const file = join(docsDir, `${api}.html`);
    if (!(api in titles)) return next(new ApiError('invalid_params', `No reference named ${api}.`, { status: 404 }));
    if (!existsSync(file)) {
      return next(
        new ApiError('invalid_params', 'The API reference is not built; run `npm run docs`.', { status: 404 }),
      );
    }
    res.sendFile(file);
  });
  return router;
}
