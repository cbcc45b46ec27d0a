import express, { Router, type Request, type Response } from 'express';
import { join } from 'node:path';
import type { LinkPageConfig } from '@paygate/web/linkConfig';
import { currencyOfUnit } from '../../currencies.js';
import { findMerchant } from '../../db/queries/accounts.js';
import type { PaymentLinkRow } from '../../db/queries/linkRows.js';
import { ApiError } from '../../errors.js';
import { webAssets } from '../../http/webAssets.js';
import { DEFAULT_WEB_DIST, notBuilt, webPageTemplate } from '../../http/webPages.js';
import { visitLink, visitorCookieValue, type LinkVisitDeps, type VisitChoice } from '../../links/visits.js';
import { gatewayUrlOf } from '../../payments/merchantPayments.js';

/**
 * A payment link's public page (docs/decisions.md §30.6) at /l/{linkId}, outside the contracts like the checkout: a
 * visit continues into the hosted checkout with a payment made from the link (303 to /pay/{id}), or shows the form
 * for the buyer's amount or quantity, which posts back here, or says why the link cannot be used.
 */
export interface LinkPageDeps extends LinkVisitDeps {
  config: { publicBaseUrl: string };
}

const cookieName = (linkId: string) => `paygate_link_${linkId}`;

function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const TITLES: Record<LinkPageConfig['state'], string> = {
  form: 'Pay',
  not_found: 'Link not found',
  deactivated: 'Link no longer available',
  expired: 'Link expired',
  used_up: 'Link used up',
  rate_limited: 'Too many attempts',
};

export function linkPageRouter(deps: LinkPageDeps, distDir = DEFAULT_WEB_DIST): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const template = webPageTemplate(join(distDir, 'link.html'));
  router.use('/link/assets', webAssets(join(distDir, 'assets')));

  async function page(res: Response, status: number, link: PaymentLinkRow | null, extra: Partial<LinkPageConfig>) {
    const built = template();
    if (!built) {
      res.status(503).set('Cache-Control', 'no-store').type('text').send(notBuilt('payment link page'));
      return;
    }
    const merchant = link && (await findMerchant(deps.db.knex, link.merchant_id));
    const config: LinkPageConfig = {
      state: 'not_found',
      error: null,
      merchantName: merchant?.name ?? null,
      merchantLogoUrl: merchant?.icon_url ?? null,
      description: link?.description ?? null,
      currency: link?.currency.slice('iso4217/'.length) ?? null,
      digits: (link && currencyOfUnit(link.currency)?.digits) ?? 2,
      amount: link?.amount_value ?? null,
      minAmount: link?.min_amount ?? null,
      maxAmount: link?.max_amount ?? null,
      maxQuantity: link?.quantity_adjustable ? link.max_quantity : null,
      lineItems: link?.line_items ?? [],
      live: link?.live ?? true,
      ...extra,
    };
    const title = `${config.merchantName ? `${config.merchantName} · ` : ''}${TITLES[config.state]}`;
    res.status(status).set('Cache-Control', 'no-store').type('html').send(built.render(config, { title }));
  }

  async function visit(req: Request<{ linkId: string }>, res: Response, choice: VisitChoice | null) {
    let outcome;
    try {
      outcome = await visitLink(
        deps,
        req.params.linkId,
        { ip: req.ip ?? null, cookie: cookieOf(req, cookieName(req.params.linkId)) },
        choice,
      );
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'rate_limited') throw err;
      res.set(err.headers);
      return page(res, 429, null, { state: 'rate_limited' });
    }
    switch (outcome.kind) {
      case 'not_found':
        return page(res, 404, null, { state: 'not_found' });
      case 'unusable':
        return page(res, 410, outcome.link, { state: outcome.state });
      case 'form':
        return page(res, outcome.error ? 400 : 200, outcome.link, { state: 'form', error: outcome.error });
      case 'payment': {
        const { payment } = outcome;
        const maxAge = Math.max(0, Math.floor((payment.expires_at - deps.now()) / 1000));
        const secure = deps.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
        res.append(
          'Set-Cookie',
          `${cookieName(payment.link_id!)}=${visitorCookieValue(deps, payment.link_id!, payment.id)}; ` +
            `Max-Age=${maxAge}; Path=/l/${payment.link_id!}; HttpOnly; SameSite=Lax${secure}`,
        );
        res.set('Cache-Control', 'no-store').redirect(303, gatewayUrlOf(deps.config.publicBaseUrl, payment.id));
        return;
      }
    }
  }

  router.get('/l/:linkId', (req, res) => visit(req, res, null));
  router.post('/l/:linkId', express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 10 }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return visit(req, res, { amount: text(body.amount), quantity: text(body.quantity) });
  });
  return router;
}
