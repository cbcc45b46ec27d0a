/**
 * The invoice page's two operations (docs/decisions.md §30.11), without credentials: the invoice id is the
 * capability. Limited per client address, so one address cannot load the database with reads or payments.
 */
import type { RequestHandler } from 'express';
import { ApiError } from '../../errors.js';
import { TokenBuckets } from '../../http/rateLimit.js';
import { payInvoice, readPublicInvoice, type PayInvoiceDeps } from '../../invoices/pay.js';

/** A buyer needs a handful of requests per visit; the page polls while a payment is open. */
export const INVOICE_PAGE_LIMIT = { rps: 2, burst: 60 } as const;

export function invoicePageRateLimit(runtime: { now: () => number }): RequestHandler {
  const byIp = new TokenBuckets({ ...INVOICE_PAGE_LIMIT, now: runtime.now });
  return (req, _res, next) => {
    const wait = byIp.take(`ip:${req.ip ?? ''}`);
    if (wait === 0) return next();
    next(
      new ApiError('rate_limited', 'Too many invoice requests from this address. Retry after Retry-After seconds.', {
        headers: { 'Retry-After': String(wait) },
      }),
    );
  };
}

/** GET /v1/gateway/invoices/{id} */
export function getPublicInvoiceHandler(deps: PayInvoiceDeps): RequestHandler<{ id: string }> {
  return async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await readPublicInvoice(deps, req.params.id));
  };
}

/** POST /v1/gateway/invoices/{id}/pay */
export function payInvoiceHandler(
  deps: PayInvoiceDeps,
): RequestHandler<{ id: string }, unknown, { amount?: string } | undefined> {
  return async (req, res) => {
    res.json(await payInvoice(deps, req.params.id, req.body?.amount));
  };
}
