/** Fiat amounts of an invoice, exactly: minor-unit strings to and from text, never through floating point. */
import { showFiat } from '../kit/amounts.js';

/** The currency's minor-unit digits (USD 2, JPY 0), from the platform's ISO 4217 data. */
export function minorDigits(code: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/**
 * "90000", "USD" → "$900.00": the one display rule of every page (kit/amounts.ts `showFiat`, docs/decisions.md §26.3),
 * so the buyer's invoice reads as the merchant's dashboard does.
 */
export function formatMoney(value: string, code: string): string {
  return showFiat(value, code, minorDigits(code));
}

/** The whole amount as typed ("200", "200.5", "1,200.50") to minor units, or null when it is not an amount. */
export function parseMoney(text: string, code: string): string | null {
  const digits = minorDigits(code);
  const clean = text.replace(/,/g, '').trim();
  const match = /^([0-9]+)(?:\.([0-9]*))?$/.exec(clean);
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  const minor = `${match[1]}${fraction.padEnd(digits, '0')}`.replace(/^0+(?=\d)/, '');
  return minor;
}

/** Minor units back to the plain text the amount field shows ("20000" → "200.00"), every minor digit written. */
export function plainMoney(value: string, code: string): string {
  const digits = minorDigits(code);
  const padded = value.padStart(digits + 1, '0');
  return digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
