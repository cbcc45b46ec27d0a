import type { RequestHandler } from 'express';
import type { operations } from '../../generated/gateway.js';
import { confirmPayment } from '../../checkout/confirm.js';
import { gatewayAuthOf } from '../../http/gatewayAuth.js';
import type { PaymentNotifier } from '../../payments/paymentWatch.js';
import { checkoutOf, type CheckoutSource } from './checkoutOf.js';

type Operation = operations['confirmPayment'];
type Body = Operation['requestBody']['content']['application/json'];
type Query = NonNullable<Operation['parameters']['query']>;
type Ok = Operation['responses'][200]['content']['application/json'];

/** POST /v1/gateway/payment/{id}/confirm, long-polling up to `maxPollMs` for a final status */
export function confirmPaymentHandler(
  deps: CheckoutSource,
  notifier: PaymentNotifier,
): RequestHandler<Operation['parameters']['path'], Ok, Body, Query> {
  return async (req, res) => {
    const auth = gatewayAuthOf(res);
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const answer = await confirmPayment(
      checkoutOf(deps),
      { live: auth.mode === 'live' },
      req.params.id,
      req.body,
      {
        maxPollMs: Number(req.query.maxPollMs ?? 0),
        signal: gone.signal,
        notifier,
      },
      { name: auth.credential.label ?? 'Unknown wallet' },
    );
    if (gone.signal.aborted || res.headersSent) return;
    res.json(answer);
  };
}
