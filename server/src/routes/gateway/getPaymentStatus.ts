import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import { buyerStatusAnswer, waitForFinalStatus, type BuyerPaymentDeps } from '../../checkout/buyerPayments.js';
import type { PaymentNotifier } from '../../payments/paymentWatch.js';

type Operation = operations['getPaymentStatus'];
type Query = NonNullable<Operation['parameters']['query']>;
type Ok = Operation['responses'][200]['content']['application/json'];

/** GET /v1/gateway/payment/{id}/status, long-polling up to `maxPollMs` for a final status */
export function getPaymentStatusHandler(
  deps: BuyerPaymentDeps,
  notifier: PaymentNotifier,
): RequestHandler<Operation['parameters']['path'], Ok, undefined, Query> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    // 'close' before the answer means the client left (or the timeout answered): nobody is waiting any more.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const payment = await waitForFinalStatus(deps, { live: auth.mode === 'live' }, req.params.id, {
      maxPollMs: Number(req.query.maxPollMs ?? 0),
      signal: gone.signal,
      notifier,
    });
    if (gone.signal.aborted || res.headersSent) return;
    res.json(buyerStatusAnswer(deps, payment));
  };
}
