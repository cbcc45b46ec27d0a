import { Router } from 'express';
import { join } from 'node:path';
import {
  checkoutTemplate,
  DEFAULT_WEB_DIST,
  hostedCheckoutApps,
  pickLanguage,
  renderCheckoutPage,
} from '../../hostedCheckout/index.js';
import { webAssets } from '../../http/webAssets.js';
import { notBuilt } from '../../http/webPages.js';
import type { Logger } from 'pino';
import type { Chains } from '../../chains/index.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/connect.js';

/**
 * The hosted checkout (docs/decisions.md, "The hosted checkout"): the page at the merchant's `gatewayUrl` and its
 * built assets. Outside the contracts, like the collect form: app.ts mounts it after the contract validators.
 */
export interface CheckoutPageDeps {
  db: Database;
  chains: Chains | null;
  now: () => number;
  logger: Logger;
  /** The option secret names the hosted checkout's app ids (resolved: always set); the base URL is the links'. */
  config: Pick<Config, 'publicBaseUrl' | 'optionSecretsPrevious'> & { optionSecret: Buffer };
}

export function checkoutRouter(deps: CheckoutPageDeps, distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = checkoutTemplate(distDir);
  const apps = hostedCheckoutApps({
    db: deps.db,
    optionSecret: deps.config.optionSecret,
    previousOptionSecrets: deps.config.optionSecretsPrevious,
    now: deps.now,
    onRevoked: (mode) =>
      deps.logger.warn({ mode }, 'the hosted checkout app id is revoked: the checkout page cannot call the gateway'),
  });
  const pageDeps = {
    db: deps.db,
    chains: deps.chains,
    // Read per request, as the collect form's links are: the same base URL the rest of the API hands out.
    get publicBaseUrl() {
      return deps.config.publicBaseUrl;
    },
    apps,
    now: deps.now,
  };

  router.get('/pay/:paymentId', async (req, res) => {
    const built = template();
    if (!built) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('checkout page'));
      return;
    }
    const lang = pickLanguage(req.query.lang, req.get('accept-language'));
    const page = await renderCheckoutPage(pageDeps, built, req.params.paymentId, lang);
    res
      .status(page.status)
      .set({ 'Cache-Control': 'no-store', 'Content-Language': lang, Vary: 'Accept-Language' })
      .type('html')
      .send(page.html);
  });
  router.use('/checkout/assets', webAssets(join(distDir, 'assets')));
  return router;
}
