/** The dashboard's invoice operations: the merchant API's (docs/decisions.md §30.9–§30.12) for the session's mode. */
import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import { createInvoice, listMerchantInvoices, voidInvoice, type InvoiceDeps } from '../../invoices/merchantInvoices.js';
import { changeSequence, readSequence } from '../../invoices/numbering.js';

type Op<N extends keyof operations> = operations[N];
type None = Record<string, never>;

const scopeOf = (res: Parameters<typeof dashboardScopeOf>[0]) => {
  const { merchantId, mode } = dashboardScopeOf(res);
  return { merchantId, live: mode === 'live' };
};

/** GET /v1/dashboard/invoices */
export function listDashboardInvoicesHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, unknown, NonNullable<Op<'listDashboardInvoices'>['parameters']['query']>> {
  return async (req, res) => {
    res.json(await listMerchantInvoices(deps, scopeOf(res), req.query));
  };
}

/** POST /v1/dashboard/invoices */
export function createDashboardInvoiceHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, Op<'createDashboardInvoice'>['requestBody']['content']['application/json']> {
  return async (req, res) => {
    res.status(201).json(await createInvoice(deps, scopeOf(res), req.body));
  };
}

/** POST /v1/dashboard/invoices/{id}/void */
export function voidDashboardInvoiceHandler(deps: InvoiceDeps): RequestHandler<{ id: string }> {
  return async (req, res) => {
    res.json(await voidInvoice(deps, scopeOf(res), req.params.id));
  };
}

/** GET /v1/dashboard/invoice-sequence */
export function getDashboardInvoiceSequenceHandler(deps: InvoiceDeps): RequestHandler {
  return async (_req, res) => {
    res.json(await readSequence(deps, scopeOf(res)));
  };
}

/** POST /v1/dashboard/invoice-sequence */
export function updateDashboardInvoiceSequenceHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, Op<'updateDashboardInvoiceSequence'>['requestBody']['content']['application/json']> {
  return async (req, res) => {
    res.json(await changeSequence(deps, scopeOf(res), req.body));
  };
}
