/**
 * What the server tells a payment link's page (`/l/{linkId}`, docs/decisions.md §30.6) in its JSON block
 * (`#paygate-config`): the link as the buyer needs to see it, or why it cannot be used. Amounts are minor units as
 * decimal strings; the page shows them in whole units.
 */
export interface LinkPageConfig {
  state: 'form' | 'not_found' | 'deactivated' | 'expired' | 'used_up' | 'rate_limited';
  /** Why the posted choice was refused (state `form` only). */
  error: string | null;
  merchantName: string | null;
  /** The merchant's uploaded logo as Paygate serves it on this origin (`/logos/<sha256>.<ext>`), or null. */
  merchantLogoUrl: string | null;
  description: string | null;
  /** The ISO 4217 code ("USD"). */
  currency: string | null;
  /** The currency's minor-unit digits. */
  digits: number;
  /** The fixed price (per unit when `maxQuantity` is set); null when the buyer chooses the amount. */
  amount: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  /** Set when the buyer chooses a quantity, 1 to this. */
  maxQuantity: number | null;
  lineItems: { name: string; quantity: number; unitAmount: string }[];
  /** False for a test-mode link: the page says so. */
  live: boolean;
}
