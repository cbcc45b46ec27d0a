/** Where the page sends the buyer: the merchant's return URLs and a chain explorer's transaction page. */
import type { CheckoutChain } from '../pageConfig.js';

/**
 * Appends `payment_id` to the merchant's URL without re-encoding its query (a signed return URL must survive byte
 * for byte), before any fragment.
 */
export function withPaymentId(url: string, paymentId: string): string {
  const hash = url.indexOf('#');
  const [base, fragment] = hash >= 0 ? [url.slice(0, hash), url.slice(hash)] : [url, ''];
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}payment_id=${encodeURIComponent(paymentId)}${fragment}`;
}

export function explorerLink(chains: CheckoutChain[], caip2: string, txId: string): string | null {
  const template = chains.find((c) => c.caip2 === caip2)?.explorerTxUrl;
  return template ? template.replace('{txId}', encodeURIComponent(txId)) : null;
}
