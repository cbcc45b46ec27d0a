import { PayError } from './errors.js';

/** The contract's `PaymentId`: `pay_` and 24 base62 characters. */
const PAYMENT_ID = /^pay_[0-9A-Za-z]{24}$/;

export function isPaymentId(value: unknown): value is string {
  return typeof value === 'string' && PAYMENT_ID.test(value);
}

/**
 * The payment id of a payment link: a gateway URL, `<PUBLIC_BASE_URL>/pay/<paymentId>` (what the merchant's
 * `gatewayUrl` is, the base possibly under a path, with any query or fragment), or a bare payment id. Anything else
 * throws a `PayError` with reason `invalid_payment_link`.
 *
 * The link's host is not checked against the SDK's `baseUrl`: a server's public URL may differ from the URL its API
 * is reached at. A link of another server names a payment this one answers `payment_not_found` for.
 */
export function parsePaymentLink(link: string): string {
  const input = typeof link === 'string' ? link.trim() : '';
  if (PAYMENT_ID.test(input)) return input;
  let url: URL | null = null;
  try {
    url = new URL(input);
  } catch {
    url = null;
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
    const id = /\/pay\/([^/]+)\/?$/.exec(url.pathname)?.[1];
    if (id !== undefined && PAYMENT_ID.test(id)) return id;
  }
  const shown = input.length > 80 ? `${input.slice(0, 80)}…` : input;
  throw new PayError(
    'invalid_payment_link',
    `Not a Paygate payment link: expected a URL ending in /pay/pay_… (a payment's gatewayUrl) or a payment id ` +
      `(pay_ and 24 letters or digits); got "${shown}".`,
  );
}
