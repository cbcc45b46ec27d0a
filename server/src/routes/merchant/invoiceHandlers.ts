/** The merchant interface's invoice operations (docs/decisions.md §30.9–§30.12): each reads its input and calls invoices/. */
import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import {
  createInvoice,
  listMerchantInvoices,
  readInvoice,
  voidInvoice,
  type InvoiceDeps,
} from '../../invoices/merchantInvoices.js';
import { changeSequence, readSequence } from '../../invoices/numbering.js';

type Op<N extends keyof operations> = operations[N];
type ById = { id: string };
type None = Record<string, never>;

const scopeOf = (res: Parameters<typeof merchantAuthOf>[0]) => {
  const auth = merchantAuthOf(res);
  return { merchantId: auth.merchant.id, live: auth.live };
};

/** POST /v1/merchant/invoices */
export function createInvoiceHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, Op<'createInvoice'>['requestBody']['content']['application/json']> {
  return async (req, res) => {
    res.status(201).json(await createInvoice(deps, scopeOf(res), req.body));
  };
}

/** GET /v1/merchant/invoices */
export function listInvoicesHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, unknown, NonNullable<Op<'listInvoices'>['parameters']['query']>> {
  return async (req, res) => {
    res.json(await listMerchantInvoices(deps, scopeOf(res), req.query));
  };
}

/** GET /v1/merchant/invoices/{id} */
export function getInvoiceHandler(deps: InvoiceDeps): RequestHandler<ById> {
  return async (req, res) => {
    res.json(await readInvoice(deps, scopeOf(res), req.params.id));
  };
}

/** POST /v1/merchant/invoices/{id}/void */
export function voidInvoiceHandler(deps: InvoiceDeps): RequestHandler<ById> {
  return async (req, res) => {
    res.json(await voidInvoice(deps, scopeOf(res), req.params.id));
  };
}

/** GET /v1/merchant/invoice-sequence */
export function getInvoiceSequenceHandler(deps: InvoiceDeps): RequestHandler {
  return async (_req, res) => {
    res.json(await readSequence(deps, scopeOf(res)));
  };
}

/** POST /v1/merchant/invoice-sequence */
export function updateInvoiceSequenceHandler(
  deps: InvoiceDeps,
): RequestHandler<None, unknown, Op<'updateInvoiceSequence'>['requestBody']['content']['application/json']> {
  return async (req, res) => {
    res.json(await changeSequence(deps, scopeOf(res), req.body));
  };
}
