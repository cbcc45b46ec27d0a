import { Router } from 'express';
import { join } from 'node:path';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST, notBuilt, webPageTemplate } from '../../http/webPages.js';

/**
 * An invoice's public page (docs/decisions.md §30.11) at /i/{invoiceId}, outside the contracts like the refund claim
 * page: the same built page for every invoice, which reads the id from its path and calls the gateway's two open
 * invoice operations. No database read here, so an unknown id costs one small static answer and the page says why.
 */
export function invoicePageRouter(distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = webPageTemplate(join(distDir, 'invoice.html'));
  router.use('/invoice/assets', webAssets(join(distDir, 'assets')));
  router.get('/i/:invoiceId', (_req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('invoice page'));
      return;
    }
    res.status(200).set('Cache-Control', 'no-store').type('html').send(page.render({}));
  });
  return router;
}
