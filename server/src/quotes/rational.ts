/**
 * Exact positive rationals over bigint: prices are read as integers with a decimal scale (a feed's answer and its
 * `decimals`, a decimal string of the static table), combined by multiplication and inversion only, and turned into
 * a token amount by one division rounded up. No float ever holds money or a rate.
 */

/** n/d with n > 0 and d > 0, in lowest terms. */
export interface Ratio {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function ratio(n: bigint, d: bigint): Ratio {
  if (n <= 0n || d <= 0n) throw new RangeError(`a price must be positive (got ${n}/${d})`);
  const g = gcd(n, d);
  return { n: n / g, d: d / g };
}

export function multiply(a: Ratio, b: Ratio): Ratio {
  return ratio(a.n * b.n, a.d * b.d);
}

export function invert(a: Ratio): Ratio {
  return { n: a.d, d: a.n };
}

/** A feed's integer answer at `decimals` decimal places: 300012345678 at 8 is 3000.12345678. */
export function scaled(answer: bigint, decimals: number): Ratio {
  return ratio(answer, 10n ** BigInt(decimals));
}

const DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/** A positive decimal string such as `3000` or `0.0067`, exactly; null for anything else. */
export function parseDecimal(text: string): Ratio | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const fraction = match[1] ?? '';
  const n = BigInt(text.replace('.', ''));
  return n > 0n ? ratio(n, 10n ** BigInt(fraction.length)) : null;
}

/** ⌈a / b⌉ for a ≥ 0 and b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * The token amount, in the token's minor units, worth `fiatMinor` of a currency with `fiatDigits` minor-unit digits
 * at `price` fiat major units per whole token, rounded up:
 *
 *   ⌈ fiatMinor · price.d · 10^tokenDecimals / (10^fiatDigits · price.n) ⌉
 */
export function tokenAmount(fiatMinor: bigint, fiatDigits: number, price: Ratio, tokenDecimals: number): bigint {
  if (fiatMinor < 0n) throw new RangeError(`a fiat amount cannot be negative (got ${fiatMinor})`);
  return ceilDiv(fiatMinor * price.d * 10n ** BigInt(tokenDecimals), 10n ** BigInt(fiatDigits) * price.n);
}
