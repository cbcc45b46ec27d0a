/**
 * Formatting for the dashboard screens. Amounts are integer strings of minor units (the contract's rule): they become
 * decimal strings by string arithmetic only, and Intl formats the decimal string exactly, so no amount ever passes
 * through a float. (Times: kit/Time.tsx.)
 */

export interface Money {
  unit: string;
  value: string;
}

/** "12345" with 2 decimals → "123.45"; exact, by string arithmetic. */
export function toDecimal(minor: string, decimals: number): string {
  const negative = minor.startsWith('-');
  const digits = (negative ? minor.slice(1) : minor).replace(/^0+(?=\d)/, '');
  if (decimals === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(decimals + 1, '0');
  return `${negative ? '-' : ''}${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
}

/** The ISO 4217 code of an `iso4217/XXX` unit, or null for any other unit (a token, CAIP-19). */
export function currencyCode(unit: string): string | null {
  const match = /^iso4217\/([A-Z]{3})$/.exec(unit);
  return match ? match[1]! : null;
}

/** How many minor-unit digits a currency has (USD 2, JPY 0, BHD 3), from the runtime's currency data. */
export function currencyDigits(code: string): number {
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
    );
  } catch {
    return 2;
  }
}

/** A fiat amount in the user's locale ("$1,234.50"); any other unit as its minor units and the unit. */
export function formatMoney(amount: Money, locale?: string): string {
  const code = currencyCode(amount.unit);
  if (!code) return `${amount.value} ${amount.unit}`;
  const digits = currencyDigits(code);
  const decimal = toDecimal(amount.value, digits);
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: code,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(decimal as `${number}`);
  } catch {
    return `${decimal} ${code}`;
  }
}

/** A token amount's asset (CAIP-19) from its unit, `caip19/<asset>`; null for any other unit. */
export function assetOfUnit(unit: string): string | null {
  return unit.startsWith('caip19/') ? unit.slice('caip19/'.length) : null;
}

/**
 * A token amount in whole tokens with its symbol ("12.275 USDC"), exact: the decimal string from `toDecimal`, trailing
 * zeros of the fraction dropped. Without the asset's decimals (a chain this server no longer runs) it stays in minor
 * units and says so, never guessed.
 */
export function formatTokenAmount(amount: Money, asset: { symbol: string; decimals: number } | null): string {
  if (!asset) return `${amount.value} minor units`;
  const decimal = toDecimal(amount.value, asset.decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  return `${decimal} ${asset.symbol}`;
}

/** "0.9500" → "95.0%" in the user's locale; null → "—". Intl rounds the decimal string exactly (no float). */
export function formatRate(rate: string | null, locale?: string): string {
  if (rate === null) return '—';
  return new Intl.NumberFormat(locale, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(
    rate as `${number}`,
  );
}

export function formatCount(count: number, locale?: string): string {
  return new Intl.NumberFormat(locale).format(count);
}

/** Unix seconds of local midnight at the start of a `YYYY-MM-DD` date (a date input's value); null when empty or invalid. */
export function localMidnight(date: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  const ms = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])).getTime();
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** Unix seconds of local midnight at the end of a `YYYY-MM-DD` date (the next day's start): an inclusive "to" date. */
export function localMidnightAfter(date: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  const ms = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + 1).getTime();
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** A local date as a date input's value, `YYYY-MM-DD`. */
export function dateInputValue(date: Date): string {
  const y = String(date.getFullYear()).padStart(4, '0');
  const m = String(date.getMonth() + 1).padStart(2, '0');
  const d = String(date.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

/** "pay_7Qz3kP9x…Jd": enough of an id to recognise it in a dense table. */
export function shortId(id: string): string {
  return id.length > 16 ? `${id.slice(0, 12)}…${id.slice(-3)}` : id;
}
