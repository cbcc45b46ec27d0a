import { ApiError } from '../../errors.js';
import type { Checkout } from '../../checkout/context.js';
import type { Runtime } from '../../runtime.js';

/** A process started without chains cannot quote or verify anything: that is the server's state, not the request's. */
export function checkoutOf(runtime: Runtime): Checkout {
  if (!runtime.checkout) {
    throw new ApiError('internal_error', 'This server serves no chains; options cannot be listed or paid.', {
      status: 503,
    });
  }
  return runtime.checkout;
}
