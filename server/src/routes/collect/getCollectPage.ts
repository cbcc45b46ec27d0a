import type { RequestHandler } from 'express';
import { join } from 'node:path';
import type { CollectPageConfig } from '../../../../web/src/collect/config.js';
import type { Config } from '../../config.js';
import { collectDataSchema, openCollectForm, type CollectFormDeps } from '../../collect/index.js';
import { ApiError } from '../../errors.js';
import { collectPageHeaders } from '../../http/security.js';
import { notBuilt, webPageTemplate } from '../../http/webPages.js';
import { linkTokenOf } from './linkToken.js';

/**
 * GET /collect/{paymentId}?t=… — the form web/ builds (web/dist/collect.html) with the schema in its config block,
 * or, when the link or the payment does not allow it, the same page in its error state with the refusal's status:
 * it shows the message and tells the wallet (`IC_ERROR`).
 */
export function getCollectPageHandler(
  deps: CollectFormDeps & { config: Pick<Config, 'corsOrigins'> },
  distDir: string,
): RequestHandler<{ paymentId: string }> {
  const template = webPageTemplate(join(distDir, 'collect.html'));
  // The CSP names the built page's script and style: made again only when a rebuild changed them.
  let headers: { for: object; set: RequestHandler } | null = null;
  return async (req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('data-collection page'));
      return;
    }
    if (headers?.for !== page.inline) {
      headers = { for: page.inline, set: collectPageHeaders(deps.config, page.inline) };
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
    // The recorded headers only: this handler sends the answer itself.
    headers.set(req, res, () => {});
    // The address carries the token: no cache may keep the page.
    res.status(status).set('Cache-Control', 'no-store').type('html').send(html);
  };
}
