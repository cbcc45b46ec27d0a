import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { solanaPayLabel, solanaPayTransaction } from '../../gateway/solanaPay.js';
import type { Runtime } from '../../runtime.js';
import { checkoutOf } from './checkout.js';

type Label = operations['getSolanaPayLabel'];
type Post = operations['postSolanaPayTransaction'];

/** GET /v1/gateway/payment/{id}/solana-pay (no credentials: http/gatewayAuth.ts lets it through) */
export function getSolanaPayLabelHandler(
  runtime: Runtime,
): RequestHandler<Label['parameters']['path'], Label['responses'][200]['content']['application/json']> {
  return async (req, res) => {
    const query = req.query as NonNullable<Label['parameters']['query']>;
    res.json(await solanaPayLabel(checkoutOf(runtime), req.params.id, query));
  };
}

/** POST /v1/gateway/payment/{id}/solana-pay */
export function postSolanaPayTransactionHandler(
  runtime: Runtime,
): RequestHandler<
  Post['parameters']['path'],
  Post['responses'][200]['content']['application/json'],
  Post['requestBody']['content']['application/json']
> {
  return async (req, res) => {
    const query = req.query as NonNullable<Post['parameters']['query']>;
    res.json(await solanaPayTransaction(checkoutOf(runtime), req.params.id, req.body, query));
  };
}

/**
 * A plain mark, so the label's `icon` always names an image Solana Pay accepts (SVG) even for a merchant without
 * one. Fixed bytes: nothing from the request reaches it.
 */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">
<rect width="64" height="64" rx="14" fill="#1f2937"/>
<path d="M18 22h28v6H18zm0 14h28v6H18z" fill="#f9fafb"/>
</svg>
`;

/** GET /v1/gateway/solana-pay/icon.svg */
export function getSolanaPayIconHandler(): RequestHandler {
  return (_req, res) => {
    // Wallets show it from their own origin (an <img>): the API's same-origin resource policy would block it.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('image/svg+xml').send(ICON);
  };
}
