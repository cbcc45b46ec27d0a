import { ApiError } from '../../errors.js';
import type { Checkout } from '../../checkout/context.js';

/** What the gateway's checkout operations read: the runtime's checkout, null in a process that serves no chain. */
export interface CheckoutSource {
  checkout: Checkout | null;
}

/** A process started without chains cannot quote or verify anything: that is the server's state, not the request's. */
export function checkoutOf(deps: CheckoutSource): Checkout {
  if (!deps.checkout) {
    throw new ApiError('internal_error', 'This server serves no chains; options cannot be listed or paid.', {
      status: 503,
    });
  }
  return deps.checkout;
}
