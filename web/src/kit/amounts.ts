/**
 * The one display rule for money on every page (checkout, dashboard, exports' display columns; issue 31 finding 4).
 *
 * - Amounts travel as integer minor units in decimal strings; this module never turns them into floats, so a display
 *   can't show a value the wire did not carry.
 * - How many digits: a stablecoin (or any asset pegged to a fiat currency) shows cents; every other asset shows
 *   SIGNIFICANT_DIGITS significant digits (0.004166666666666667 ETH → 0.00416667 ETH), never fewer than its whole part.
 * - A payable amount (what the buyer must still send) is rounded UP, never down: paying what the page shows is always
 *   enough. What was received, refunded or held is rounded to the nearest.
 * - The full amount is always available (`full`) for a title, a copy button or a "show exact amount" toggle.
 */

/** Digits shown of an asset that is not pegged to a fiat currency. */
export const SIGNIFICANT_DIGITS = 6;
/** Fraction digits shown of a fiat-pegged asset. */
const PEGGED_FRACTION_DIGITS = 2;
/** Symbols treated as fiat-pegged: the stablecoins the chain presets ship, by their ticker. */
const PEGGED = /^(T?USD[CT]?|USDC\.e|DAI|PYUSD|EURC|EURe|TUSD|USDP|FDUSD)$/i;

export type Rounding = 'up' | 'nearest';

export interface AmountInput {
  /** Integer minor units, as a decimal string (or a bigint). */
  value: string | bigint;
  decimals: number;
  symbol?: string;
}

export interface ShownAmount {
  /** The rounded amount in the locale, with its symbol: "0.00416667 ETH". */
  text: string;
  /** Every digit, unrounded, with its symbol: "0.004166666666666667 ETH". */
  full: string;
  /** The rounded decimal without locale or symbol ("0.00416667"), e.g. for a wallet link's amount. */
  decimal: string;
  /** True when `text` shows the exact amount (nothing was rounded away). */
  exact: boolean;
}

/** Minor units as a plain decimal string, every digit kept and trailing zeros dropped: ("12500000", 6) → "12.5". */
export function toDecimal(value: string | bigint, decimals: number): string {
  const raw = typeof value === 'bigint' ? value : BigInt(value);
  const negative = raw < 0n;
  const digits = (negative ? -raw : raw).toString();
  if (decimals === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function isPegged(symbol: string | undefined): boolean {
  return symbol !== undefined && PEGGED.test(symbol);
}

/** How many fraction digits the rule shows of this amount. */
export function fractionDigitsFor(value: bigint, decimals: number, symbol: string | undefined): number {
  const abs = value < 0n ? -value : value;
  const wholeDigits = (abs / 10n ** BigInt(decimals)).toString().length;
  const whole = abs / 10n ** BigInt(decimals);
  let digits: number;
  if (isPegged(symbol) && abs >= 10n ** BigInt(Math.max(0, decimals - PEGGED_FRACTION_DIGITS))) {
    digits = PEGGED_FRACTION_DIGITS;
  } else if (whole > 0n) {
    digits = Math.max(0, SIGNIFICANT_DIGITS - wholeDigits);
  } else {
    // Below one whole unit: the leading zeros of the fraction don't count as significant.
    const fraction = abs.toString().padStart(decimals, '0');
    const leadingZeros = fraction.length - fraction.replace(/^0+/, '').length;
    digits = leadingZeros + (isPegged(symbol) ? 2 : SIGNIFICANT_DIGITS);
  }
  return Math.min(digits, decimals);
}

/** Rounds minor units to `keep` fraction digits, returning minor units at that precision and whether digits were lost. */
function roundTo(
  value: bigint,
  decimals: number,
  keep: number,
  rounding: Rounding,
): { scaled: bigint; exact: boolean } {
  const drop = decimals - keep;
  if (drop <= 0) return { scaled: value, exact: true };
  const unit = 10n ** BigInt(drop);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  let q = abs / unit;
  const r = abs % unit;
  if (r > 0n && (rounding === 'up' || 2n * r >= unit)) q += 1n;
  return { scaled: negative ? -q : q, exact: r === 0n };
}

/**
 * An amount for display under the rule. `rounding: 'up'` for anything the buyer pays (the default, so a forgotten
 * argument errs on the buyer's side of enough); 'nearest' for amounts received, refunded or held.
 */
export function showAmount(amount: AmountInput, options: { locale?: string; rounding?: Rounding } = {}): ShownAmount {
  const value = typeof amount.value === 'bigint' ? amount.value : BigInt(amount.value);
  const { decimals, symbol } = amount;
  const keep = fractionDigitsFor(value, decimals, symbol);
  const { scaled, exact } = roundTo(value, decimals, keep, options.rounding ?? 'up');
  const decimal = toDecimal(scaled, keep);
  const minFraction = isPegged(symbol) && keep === PEGGED_FRACTION_DIGITS ? PEGGED_FRACTION_DIGITS : 0;
  const shownFraction = decimal.includes('.') ? decimal.split('.')[1]!.length : 0;
  const number = new Intl.NumberFormat(options.locale ?? 'en', {
    minimumFractionDigits: Math.min(minFraction, 20),
    maximumFractionDigits: Math.min(Math.max(shownFraction, minFraction), 20),
  }).format(decimal as `${number}`);
  const withSymbol = (n: string) => (symbol ? `${n} ${symbol}` : n);
  return { text: withSymbol(number), full: withSymbol(toDecimal(value, decimals)), decimal, exact };
}

/** A fiat amount in minor units ("1250", "EUR", 2) in the locale's currency format: "€12.50". */
export function showFiat(value: string | bigint, currency: string, decimals = 2, locale = 'en'): string {
  const decimal = toDecimal(value, decimals);
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    }).format(decimal as `${number}`);
  } catch {
    return `${decimal} ${currency}`;
  }
}
