import type { RequestHandler } from 'express';
import { join } from 'node:path';
import type { CollectPageConfig } from '@paygate/web/collectConfig';
import { collectDataSchema, openCollectForm, type CollectFormDeps } from '../../collect/index.js';
import { ApiError } from '../../errors.js';
import { notBuilt, webPageTemplate } from '../../http/webPages.js';
import { linkTokenOf } from './linkToken.js';

/**
 * GET /collect/{paymentId}?t=… — the form web/ builds (web/dist/collect.html) with the schema in its config block,
 * or, when the link or the payment does not allow it, the same page in its error state with the refusal's status:
 * it shows the message and tells the wallet (`IC_ERROR`).
 */
export function getCollectPageHandler(deps: CollectFormDeps, distDir: string): RequestHandler<{ paymentId: string }> {
  const template = webPageTemplate(join(distDir, 'collect.html'));
  return async (req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('data-collection page'));
      return;
    }
    let status = 200;
    let html: string;
    try {
      await openCollectForm(deps, req.params.paymentId, linkTokenOf(req));
      html = page.render({ schema: collectDataSchema } satisfies CollectPageConfig);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      html = page.render({ error: { code: err.code, message: err.message } } satisfies CollectPageConfig);
    }
    // The address carries the token: no cache may keep the page.
    res.status(status).set('Cache-Control', 'no-store').type('html').send(html);
  };
}
