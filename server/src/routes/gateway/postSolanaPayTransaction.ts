import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { solanaPayTransaction } from '../../checkout/solanaPay.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Post = operations['postSolanaPayTransaction'];

/** POST /v1/gateway/payment/{id}/solana-pay */
export function postSolanaPayTransactionHandler(
  deps: CheckoutSource,
): RequestHandler<
  Post['parameters']['path'],
  Post['responses'][200]['content']['application/json'],
  Post['requestBody']['content']['application/json']
> {
  return async (req, res) => {
    const query = req.query as NonNullable<Post['parameters']['query']>;
    res.json(await solanaPayTransaction(checkoutOf(deps), req.params.id, req.body, query));
  };
}
