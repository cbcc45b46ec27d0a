import { Router } from 'express';
import { join } from 'node:path';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST, notBuilt, webPageTemplate } from '../../http/webPages.js';

/**
 * The point-of-sale screen (docs/decisions.md §30.15) at /pos/{posId}, outside the contracts like the refund page.
 * The page is the same for every terminal and holds no data: the device enters the terminal's key once and reads
 * everything through the gateway's point-of-sale operations.
 */
export function posPageRouter(distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = webPageTemplate(join(distDir, 'pos.html'));
  // A missing asset is a 404, never the page: a stale script URL must not be answered with HTML.
  router.use('/pos/assets', webAssets(join(distDir, 'assets')), (_req, res) => {
    res.status(404).set('Cache-Control', 'no-store').type('text').send('Not found.\n');
  });
  router.get(/^\/pos\/pos_[0-9A-Za-z]{16}$/, (_req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('point-of-sale screen'));
      return;
    }
    res.status(200).set('Cache-Control', 'no-store').type('html').send(page.render({}));
  });
  return router;
}
