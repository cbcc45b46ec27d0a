/** Minor units as a decimal number of whole units, exactly (no float): "5000000", 6, "TUSD" → "5 TUSD". */
export function formatAmount(value: string, decimals: number, symbol: string): string {
  const digits = value.padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = decimals === 0 ? '' : digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${whole}${fraction === '' ? '' : `.${fraction}`} ${symbol}`;
}
