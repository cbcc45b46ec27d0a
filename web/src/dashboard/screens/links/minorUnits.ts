/** "12.50" in a currency of `digits` minor digits as minor units ("1250"), exactly; null when it is not such a number. */
export function minorUnitsOf(text: string, digits: number): string | null {
  const match = /^([0-9]{1,15})(?:\.([0-9]+))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return null;
  const minor = (match[1]! + fraction.padEnd(digits, '0')).replace(/^0+(?=.)/, '');
  return minor === '0' ? null : minor;
}
