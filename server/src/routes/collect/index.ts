import { Router } from 'express';
import { join } from 'node:path';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST } from '../../http/webPages.js';
import type { CollectFormDeps } from '../../collect/index.js';
import { getCollectPageHandler } from './getCollectPage.js';
import { submitCollectedDataHandler } from './submitCollectedData.js';

/**
 * The data-collection web form (docs/decisions.md §16): a page and its form post, outside the OpenAPI contracts, so
 * app.ts mounts this after the contract validators, which ignore paths outside their prefixes. The token in the link
 * is the credential; there is no API key.
 */
export function collectRouter(deps: CollectFormDeps, distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.use('/collect/assets', webAssets(join(distDir, 'assets')));
  router.get('/collect/:paymentId', getCollectPageHandler(deps, distDir));
  router.post('/collect/:paymentId', submitCollectedDataHandler(deps));
  return router;
}
