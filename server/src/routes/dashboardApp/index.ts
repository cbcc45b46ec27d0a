import { Router } from 'express';
import { join } from 'node:path';
import type { DashboardPageConfig } from '@paygate/web/dashboardConfig';
import { simulatedPayment } from '../../chains/adapters.js';
import { allChains, type Chains } from '../../chains/index.js';
import { SAMPLE } from '../../payments/simulate.js';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST, notBuilt, webPageTemplate } from '../../http/webPages.js';

/**
 * The merchant dashboard web app (web/dashboard.html): one page for `/dashboard` and every path under it (the app
 * routes with the History API, so a reload or a shared link of `/dashboard/payments` gets the same page), and its
 * built assets under /dashboard/assets/. Outside the contracts like the checkout: app.ts mounts it after the
 * contract validators. The page holds no data: it signs in and reads everything through /v1/dashboard.
 */
export function dashboardAppRouter(deps: { chains: Chains | null }, distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = webPageTemplate(join(distDir, 'dashboard.html'));
  // Built once: the chains do not change while the process runs.
  const config: DashboardPageConfig = {
    chains: deps.chains
      ? allChains(deps.chains).map(({ config: chain }) => ({
          caip2: chain.caip2,
          name: chain.name,
          mode: chain.mode,
          assets: chain.assets.map((a) => ({ caip19: a.caip19, symbol: a.symbol, decimals: a.decimals })),
          explorerTxUrl: chain.explorerTxUrl,
        }))
      : [],
    // The simulator's sample token and chain (payments/simulate.ts), so a simulated payment reads in whole tokens.
    simulated: {
      caip2: simulatedPayment.chain,
      name: 'Simulated network',
      asset: { caip19: simulatedPayment.unit.slice('caip19/'.length), symbol: 'TEST', decimals: SAMPLE.decimals },
    },
  };

  // A missing asset is a 404, never the page: a stale script URL must not be answered with HTML.
  router.use('/dashboard/assets', webAssets(join(distDir, 'assets')), (_req, res) => {
    res.status(404).set('Cache-Control', 'no-store').type('text').send('Not found.\n');
  });
  router.get(/^\/dashboard(\/.*)?$/, (_req, res) => {
    const page = template();
    if (!page) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('dashboard'));
      return;
    }
    res.status(200).set('Cache-Control', 'no-store').type('html').send(page.render(config));
  });
  return router;
}
