import type { RequestHandler } from 'express';
import { submitCollectedData, type CollectFormDeps } from '../../collect/index.js';
import { ApiError } from '../../errors.js';
import { linkTokenOf } from './linkToken.js';

/**
 * POST /collect/{paymentId}?t=… with the form's JSON — 204 once stored; refusals are ErrorResponse bodies from the
 * error handler. The body is never logged: the request log line has no body, and refusals name fields, not values.
 */
export function submitCollectedDataHandler(deps: CollectFormDeps): RequestHandler<{ paymentId: string }> {
  return async (req, res) => {
    if (!req.is('application/json')) {
      throw new ApiError('invalid_params', 'Unsupported content type; send application/json.', { status: 415 });
    }
    await submitCollectedData(deps, req.params.paymentId, linkTokenOf(req), req.body);
    res.status(204).set('Cache-Control', 'no-store').end();
  };
}
