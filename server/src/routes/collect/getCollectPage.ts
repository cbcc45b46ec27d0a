import type { RequestHandler } from 'express';
import { collectDataSchema, openCollectForm, renderCollectPage, type CollectFormDeps } from '../../collect/index.js';
import { ApiError } from '../../errors.js';
import { linkTokenOf } from './linkToken.js';

/**
 * GET /collect/{paymentId}?t=… — the form, or, when the link or the payment does not allow it, the same page in its
 * error state with the refusal's status: it shows the message and tells the wallet (`IC_ERROR`).
 */
export function getCollectPageHandler(deps: CollectFormDeps): RequestHandler<{ paymentId: string }> {
  return async (req, res) => {
    let status = 200;
    let page: string;
    try {
      await openCollectForm(deps, req.params.paymentId, linkTokenOf(req));
      page = renderCollectPage({ schema: collectDataSchema });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      page = renderCollectPage({ error: { code: err.code, message: err.message } });
    }
    // The address carries the token: no cache may keep the page.
    res.status(status).set('Cache-Control', 'no-store').type('html').send(page);
  };
}
