import type { RequestHandler, Response } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import {
  createPaymentLink,
  deactivatePaymentLink,
  getPaymentLink,
  listMerchantPaymentLinks,
  updateMerchantPaymentLink,
  type PaymentLinkDeps,
} from '../../links/paymentLinks.js';

type Ops = operations;
type LinkPath = Ops['getDashboardPaymentLink']['parameters']['path'];
type Link = Ops['getDashboardPaymentLink']['responses'][200]['content']['application/json'];

const scopeOf = (res: Response) => {
  const { merchantId, mode } = dashboardScopeOf(res);
  return { merchantId, live: mode === 'live' };
};

/** The dashboard's payment-link operations: the merchant API's, in the request's mode (docs/decisions.md §30.5). */
export function dashboardPaymentLinkHandlers(deps: PaymentLinkDeps) {
  const create: RequestHandler<
    Record<string, never>,
    Link,
    Ops['createDashboardPaymentLink']['requestBody']['content']['application/json']
  > = async (req, res) => {
    res.status(201).json(await createPaymentLink(deps, scopeOf(res), req.body));
  };
  const list: RequestHandler<
    Record<string, never>,
    Ops['listDashboardPaymentLinks']['responses'][200]['content']['application/json']
  > = async (req, res) => {
    const query = req.query as NonNullable<Ops['listDashboardPaymentLinks']['parameters']['query']>;
    res.json(await listMerchantPaymentLinks(deps, scopeOf(res), query));
  };
  const get: RequestHandler<LinkPath, Link> = async (req, res) => {
    res.json(await getPaymentLink(deps, scopeOf(res), req.params.linkId));
  };
  const update: RequestHandler<
    LinkPath,
    Link,
    Ops['updateDashboardPaymentLink']['requestBody']['content']['application/json']
  > = async (req, res) => {
    res.json(await updateMerchantPaymentLink(deps, scopeOf(res), req.params.linkId, req.body));
  };
  const deactivate: RequestHandler<LinkPath, Link> = async (req, res) => {
    res.json(await deactivatePaymentLink(deps, scopeOf(res), req.params.linkId));
  };
  return {
    createDashboardPaymentLink: create,
    listDashboardPaymentLinks: list,
    getDashboardPaymentLink: get,
    updateDashboardPaymentLink: update,
    deactivateDashboardPaymentLink: deactivate,
  };
}
