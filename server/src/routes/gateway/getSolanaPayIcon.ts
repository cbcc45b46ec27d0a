import type { RequestHandler } from 'express';

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
