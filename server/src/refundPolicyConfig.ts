/**
 * The settings of the refund policy (settlement/refundPolicy.ts, docs/decisions.md §22.13), parsed at startup by
 * config.ts. Amounts are whole units of an asset as decimal strings, like PAYGATE_PAYOUT_MINIMUM, with a value per
 * asset where one default does not fit every asset (1 USDC and 1 ETH are not the same refund).
 */

/** A whole-unit amount for every asset, with exceptions by CAIP-19 asset id. */
export interface AmountPerAsset {
  /** Whole units (a decimal string) for an asset not named in `byAsset`. */
  fallback: string;
  byAsset: Record<string, string>;
}

export interface RefundPolicyConfig {
  /** PAYGATE_REFUND_MINIMUM: the least an on-chain refund sends. */
  minimum: AmountPerAsset;
  /** PAYGATE_REFUND_NETWORK_FEE: what the merchant is charged for each on-chain refund's transaction. */
  networkFee: AmountPerAsset;
  /** PAYGATE_REFUND_OWNER_ABOVE: a refund of more than this needs an owner (or a key an owner allowed to refund). */
  ownerAbove: AmountPerAsset;
  /** PAYGATE_REFUND_LIMIT_PER_PAYMENT: how many on-chain refunds one payment may have (ended claim links aside). */
  perPayment: number;
}

const DECIMAL = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/;
const ASSET = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$/;

/**
 * `1` (every asset), or `1,eip155:1/slip44:60=0.001` (a default, then exceptions by CAIP-19 id). Answers the problem
 * as a sentence for ConfigError, or the parsed value.
 */
export function parseAmountPerAsset(raw: string, fallback: string): AmountPerAsset | string {
  const out: AmountPerAsset = { fallback, byAsset: {} };
  let defaultSeen = false;
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (entry === '') continue;
    const at = entry.lastIndexOf('=');
    const asset = at < 0 ? null : entry.slice(0, at).trim();
    const amount = at < 0 ? entry : entry.slice(at + 1).trim();
    if (!DECIMAL.test(amount))
      return `must be a decimal number of whole units, or a comma list of them with \`<caip19 asset>=<amount>\` exceptions (not "${entry}")`;
    if (asset === null) {
      if (defaultSeen) return 'names more than one default amount (an entry without an asset)';
      defaultSeen = true;
      out.fallback = amount;
      continue;
    }
    if (!ASSET.test(asset))
      return `names "${asset}", which is not a CAIP-19 asset id (<caip2 chain>/<asset namespace>:<reference>)`;
    if (out.byAsset[asset] !== undefined) return `names asset ${asset} twice`;
    out.byAsset[asset] = amount;
  }
  return out;
}

export const amountFor = (setting: AmountPerAsset, asset: string): string => setting.byAsset[asset] ?? setting.fallback;
