import { Router } from 'express';
import { join } from 'node:path';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST, notBuilt, webPageTemplate } from '../../http/webPages.js';

/**
 * A refund's claim page (docs/decisions.md §22.6) at /refund, outside the contracts like the data-collection form.
 * The page is the same for every refund: the token is in the link's fragment, which the browser never sends, and
 * the page hands it to the gateway's open refund-claim operations in a request body.
 */
export function refundPageRouter(distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = webPageTemplate(join(distDir, 'refund.html'));
  router.use('/refund/assets', webAssets(join(distDir, 'assets')));
  router.get('/refund', (_req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('refund claim page'));
      return;
    }
    res.status(200).set('Cache-Control', 'no-store').type('html').send(page.render({}));
  });
  return router;
}
