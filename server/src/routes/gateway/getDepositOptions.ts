import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { readBuyerPayment } from '../../checkout/buyerPayments.js';
import { requirePayable } from '../../checkout/options.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { settlementModeOf } from '../../settlement/modes.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Operation = operations['getDepositOptions'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/payment/{id}/deposit */
export function getDepositOptionsHandler(deps: CheckoutSource): RequestHandler<Operation['parameters']['path'], Ok> {
  return async (req, res) => {
    const checkout = checkoutOf(deps);
    const payment = await readBuyerPayment(checkout, { live: gatewayAuthOf(res).mode === 'live' }, req.params.id);
    requirePayable(checkout, payment);
    const mode = await settlementModeOf(checkout.db.knex, payment);
    res.json(await mode.depositOptions(checkout, payment));
  };
}
