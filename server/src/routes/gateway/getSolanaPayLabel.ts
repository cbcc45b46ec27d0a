import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { solanaPayLabel } from '../../checkout/solanaPay.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Label = operations['getSolanaPayLabel'];

/** GET /v1/gateway/payment/{id}/solana-pay (no credentials: http/gatewayAuth.ts lets it through) */
export function getSolanaPayLabelHandler(
  deps: CheckoutSource,
): RequestHandler<Label['parameters']['path'], Label['responses'][200]['content']['application/json']> {
  return async (req, res) => {
    const query = req.query as NonNullable<Label['parameters']['query']>;
    res.json(await solanaPayLabel(checkoutOf(deps), req.params.id, query));
  };
}
