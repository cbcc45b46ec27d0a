/**
 * The web form's two steps: opening it (is the link genuine, can the payment still take data?) and submitting it
 * (the same checks, in the order of docs/decisions.md §2: the id's length, the link is the credential, then the
 * data, then the payment and its state). A wrong token and an unknown payment answer the same 404, so the link
 * reveals nothing; the id is opaque, so one of any form (but the length) is just another unknown payment.
 */
import { findPayment, type PaymentRow } from '../db/queries/payments.js';
import { ApiError } from '../errors.js';
import { MAX_PAYMENT_ID_PARAM_LENGTH } from '../ids.js';
import { expireIfOverdue, type LifecycleDeps } from '../payments/lifecycle.js';
import { validateCollectedData } from './rules.js';
import { saveCollectedData, type CollectStoreDeps } from './store.js';
import { collectTokenMatches } from './token.js';

export type CollectFormDeps = LifecycleDeps &
  CollectStoreDeps & {
    config: { optionSecret: Buffer; optionSecretsPrevious: readonly Buffer[] };
  };

const notFound = () => new ApiError('payment_not_found', 'No payment matches this data-collection link.');

/** The contracts' bound on a payment id in a path (`PaymentIdParam`), checked before anything else as theirs is. */
function requireIdLength(paymentId: string): void {
  if ([...paymentId].length > MAX_PAYMENT_ID_PARAM_LENGTH) {
    throw new ApiError(
      'params_validation',
      `params.paymentId: must NOT have more than ${MAX_PAYMENT_ID_PARAM_LENGTH} characters`,
    );
  }
}

function requireToken(deps: CollectFormDeps, paymentId: string, token: unknown): void {
  if (!collectTokenMatches(paymentId, token, [deps.config.optionSecret, ...deps.config.optionSecretsPrevious]))
    throw notFound();
}

async function collectablePayment(deps: CollectFormDeps, paymentId: string): Promise<PaymentRow> {
  const found = await findPayment(deps.db.knex, paymentId);
  if (!found) throw notFound();
  const payment = await expireIfOverdue(deps, found);
  if (payment.status === 'expired') throw new ApiError('payment_expired', `Payment ${paymentId} has expired.`);
  if (payment.status !== 'requires_action') {
    throw new ApiError(
      'invalid_state',
      `Payment ${paymentId} is ${payment.status}; data can be given only while it requires action.`,
    );
  }
  return payment;
}

/** Throws the ApiError the page shows instead of the form. */
export async function openCollectForm(deps: CollectFormDeps, paymentId: string, token: unknown): Promise<void> {
  requireIdLength(paymentId);
  requireToken(deps, paymentId, token);
  await collectablePayment(deps, paymentId);
}

/** Validates and stores the form's answer; a repeat replaces the earlier answer while the payment is open. */
export async function submitCollectedData(
  deps: CollectFormDeps,
  paymentId: string,
  token: unknown,
  body: unknown,
): Promise<void> {
  requireIdLength(paymentId);
  requireToken(deps, paymentId, token);
  const checked = validateCollectedData(body);
  if (!checked.ok) throw new ApiError('params_validation', checked.message);
  await collectablePayment(deps, paymentId);
  await saveCollectedData(deps, paymentId, checked.value);
}
