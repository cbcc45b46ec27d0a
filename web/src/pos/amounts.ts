/**
 * The screen's money rules, in integer minor units (bigint), never floats. The tip is the server's rule
 * (server/src/pos/sales.ts `tipOf`): round(subtotal × percent / 100), halves rounded up. The screen computes it
 * only to show it before the sale is sent; the amount charged is always the server's answer.
 */
export function tipOf(subtotal: bigint, percent: number): bigint {
  return (subtotal * BigInt(percent) + 50n) / 100n;
}

/** The minor-unit digits of an ISO 4217 currency, as the browser's Intl knows them (2 when it does not). */
export function digitsOf(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** The keypad's entry: digits typed, read as minor units (typing 1, 2, 5, 0 on a USD till gives 12.50). */
export function pressDigit(entry: string, digit: string): string {
  if (entry.length >= 12) return entry;
  const next = `${entry}${digit}`.replace(/^0+/, '');
  return next;
}

export function backspace(entry: string): string {
  return entry.slice(0, -1);
}
