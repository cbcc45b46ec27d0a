/**
 * Amounts are integer strings of minor units (the contract's rule); they are turned into decimal strings by string
 * arithmetic only, and Intl formats the decimal string exactly, so no amount ever passes through a float.
 */
import type { Amount } from '@paygate/sdk-wallet';
import { showFiat } from '../kit/amounts.js';

export function toDecimal(minor: string, decimals: number): string {
  const negative = minor.startsWith('-');
  const digits = (negative ? minor.slice(1) : minor).replace(/^0+(?=\d)/, '');
  if (decimals === 0) return `${negative ? '-' : ''}${digits}`;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals);
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** A fiat amount (`iso4217/CODE`) in the buyer's locale, with the currency's own digits (the kit's one rule). */
export function formatFiat(amount: Amount, locale: string): string {
  return showFiat(amount.value, amount.unit.replace(/^iso4217\//, ''), amount.display?.decimals ?? 2, locale);
}

/** A token amount with every significant digit (trailing zeros dropped) and its symbol: "12.5 USDC". */
export function formatToken(amount: Amount, locale: string): string {
  const decimals = amount.display?.decimals ?? 0;
  const decimal = toDecimal(amount.value, decimals);
  const fractionDigits = decimal.includes('.') ? decimal.split('.')[1]!.replace(/0+$/, '').length : 0;
  const number = new Intl.NumberFormat(locale, {
    minimumFractionDigits: 0,
    maximumFractionDigits: Math.min(Math.max(fractionDigits, 0), 20),
  }).format(decimal as `${number}`);
  return `${number} ${amount.display?.assetSymbol ?? ''}`.trim();
}

/** "4:05" for a countdown; hours when the payment lives longer than one. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** `0x7099…79C8`: enough of an address or transaction id to recognise it. */
export function shorten(value: string): string {
  return value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
}

export function formatTime(epochMs: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(epochMs));
}
