import type { RequestHandler } from 'express';
import type { operations } from '../../generated/merchant.js';
import { merchantAuthOf } from '../../http/merchantAuth.js';
import {
  createPaymentLink,
  deactivatePaymentLink,
  getPaymentLink,
  listMerchantPaymentLinks,
  updateMerchantPaymentLink,
  type PaymentLinkDeps,
} from '../../links/paymentLinks.js';

type Ops = operations;
type LinkPath = Ops['getPaymentLink']['parameters']['path'];
type Link = Ops['getPaymentLink']['responses'][200]['content']['application/json'];

const scopeOf = (res: Parameters<typeof merchantAuthOf>[0]) => {
  const auth = merchantAuthOf(res);
  return { merchantId: auth.merchant.id, live: auth.live };
};

/** The payment-link operations of the merchant API (docs/decisions.md §30.5), each a thin call into links/. */
export function paymentLinkHandlers(deps: PaymentLinkDeps) {
  const create: RequestHandler<
    Record<string, never>,
    Link,
    Ops['createPaymentLink']['requestBody']['content']['application/json']
  > = async (req, res) => {
    res.status(201).json(await createPaymentLink(deps, scopeOf(res), req.body));
  };
  const list: RequestHandler<
    Record<string, never>,
    Ops['listPaymentLinks']['responses'][200]['content']['application/json']
  > = async (req, res) => {
    const query = req.query as NonNullable<Ops['listPaymentLinks']['parameters']['query']>;
    res.json(await listMerchantPaymentLinks(deps, scopeOf(res), query));
  };
  const get: RequestHandler<LinkPath, Link> = async (req, res) => {
    res.json(await getPaymentLink(deps, scopeOf(res), req.params.linkId));
  };
  const update: RequestHandler<
    LinkPath,
    Link,
    Ops['updatePaymentLink']['requestBody']['content']['application/json']
  > = async (req, res) => {
    res.json(await updateMerchantPaymentLink(deps, scopeOf(res), req.params.linkId, req.body));
  };
  const deactivate: RequestHandler<LinkPath, Link> = async (req, res) => {
    res.json(await deactivatePaymentLink(deps, scopeOf(res), req.params.linkId));
  };
  return {
    createPaymentLink: create,
    listPaymentLinks: list,
    getPaymentLink: get,
    updatePaymentLink: update,
    deactivatePaymentLink: deactivate,
  };
}
