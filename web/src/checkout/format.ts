/**
 * The checkout's amounts and times for people. Amounts follow the one display rule of web/src/kit/amounts.ts
 * (significant digits by asset, a payable amount never rounded down, the full amount beside it); minor units never
 * pass through a float.
 */
import type { Amount } from '@paygate/sdk-wallet';
import { showAmount, showFiat, type Rounding, type ShownAmount } from '../kit/amounts.js';

/** A fiat amount (`iso4217/CODE`) in the buyer's locale, with the currency's own digits (the kit's one rule). */
export function formatFiat(amount: Amount, locale: string): string {
  return showFiat(amount.value, fiatCode(amount), amount.display?.decimals ?? 2, locale);
}

function fiatCode(amount: Amount): string {
  return amount.unit.replace(/^iso4217\//, '');
}

/**
 * A token amount under the display rule: `rounding: 'up'` for what the buyer pays (the default), 'nearest' for what
 * was paid or received. `text` is "0.00416667 ETH", `full` "0.004166666666666667 ETH".
 */
export function showToken(amount: Amount, locale: string, rounding: Rounding = 'up'): ShownAmount {
  return showAmount(
    { value: amount.value, decimals: amount.display?.decimals ?? 0, symbol: amount.display?.assetSymbol },
    { locale, rounding },
  );
}

export function formatToken(amount: Amount, locale: string, rounding: Rounding = 'up'): string {
  return showToken(amount, locale, rounding).text;
}

/**
 * What one whole unit of the token costs in the payment's currency, from the option's own quote (fiat for token):
 * "$3,000.00". Integer arithmetic on minor units, rounded to the nearest minor unit of the currency.
 */
export function formatRate(fiat: Amount, token: Amount, locale: string): string | null {
  const tokenValue = BigInt(token.value);
  if (tokenValue === 0n || !fiat.unit.startsWith('iso4217/')) return null;
  const tokenDecimals = BigInt(token.display?.decimals ?? 0);
  const scaled = BigInt(fiat.value) * 10n ** tokenDecimals;
  const rate = (2n * scaled + tokenValue) / (2n * tokenValue);
  return showFiat(rate, fiatCode(fiat), fiat.display?.decimals ?? 2, locale);
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

/** A moment with its date and its time zone, so a receipt read later or elsewhere is not ambiguous. */
export function formatTime(epochMs: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'long' }).format(new Date(epochMs));
}

/** A time of day today ("11:05 AM"), for how long a price holds. */
export function formatClock(epochMs: number, locale: string): string {
  return new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(new Date(epochMs));
}
