/** Fetch an action: resolves a `build` action of a verified option into wallet RPC calls, built now. */
import { ApiError } from '../errors.js';
import type { components } from '../generated/gateway.js';
import { readBuyerPayment, type GatewayScope } from './buyerPayments.js';
import { requireAdapter, type Checkout } from './context.js';
import { verifiedOptionOf, refuseStaleQuote } from './confirm.js';
import { requirePayable } from './options.js';

type FetchRequest = components['schemas']['FetchActionRequest'];
type FetchResponse = components['schemas']['FetchActionResponse'];

export async function fetchAction(
  checkout: Checkout,
  scope: GatewayScope,
  id: string,
  body: FetchRequest,
): Promise<FetchResponse> {
  const payment = await readBuyerPayment(checkout, scope, id);
  const option = verifiedOptionOf(checkout, id, body.optionId);
  requirePayable(checkout, payment);
  refuseStaleQuote(checkout, option);
  const adapter = requireAdapter(checkout, option.claims.chain);
  const actions = await adapter.actions(option);
  const isBuild = actions.some((a) => a.type === 'build' && a.data.data === body.data);
  if (!isBuild) throw new ApiError('params_validation', 'data is not a build action of this option.');
  return { actions: await adapter.resolveBuild(option, body.data) };
}
