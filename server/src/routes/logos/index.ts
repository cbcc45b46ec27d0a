import { Router } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { readLogo } from '../../accounts/logo.js';

/**
 * Merchants' logos at /logos/<sha256>.<ext> (docs/decisions.md §26.23), outside the contracts like the web pages'
 * assets: an image, not an API answer. The name is the bytes' hash, so an answer never changes and is cached for a
 * year; the type is the one the bytes were checked to be, and nosniff stops a browser from guessing another.
 */
export function logosRouter(deps: AccountsDeps): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/logos/:file', async (req, res, next) => {
    try {
      const logo = await readLogo(deps, req.params.file);
      if (!logo) {
        next();
        return;
      }
      res.setHeader('Content-Type', logo.type);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      // Opened on its own, the image is a document: it may run nothing and load nothing.
      res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; sandbox");
      // Solana Pay wallets show the merchant's icon from their own origin (checkout/solanaPay.ts).
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
      res.status(200).end(logo.bytes);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
