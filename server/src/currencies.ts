/**
 * ISO 4217 from the maintained `currency-codes` dataset (ISO's List One: active codes only), never a hand-written
 * list, so a currency ISO adds or withdraws follows with a dependency update.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { code as lookupCode } from 'currency-codes';

/**
 * Codes whose minor unit ISO gives as "N.A.": precious metals, bond-market units, SDR, test and no-currency codes.
 * They are not money a buyer can be charged in, and the package reports their minor unit as 0, which would make
 * them look like zero-decimal currencies; the package ships ISO's own XML, which keeps the distinction.
 */
function codesWithoutMinorUnit(): Set<string> {
  const xmlPath = createRequire(import.meta.url).resolve('currency-codes/iso-4217-list-one.xml');
  const xml = readFileSync(xmlPath, 'utf8');
  const codes = new Set<string>();
  for (const entry of xml.matchAll(/<CcyNtry>([\s\S]*?)<\/CcyNtry>/g)) {
    const body = entry[1]!;
    const ccy = /<Ccy>([A-Z]{3})<\/Ccy>/.exec(body)?.[1];
    if (ccy && /<CcyMnrUnts>N\.A\.<\/CcyMnrUnts>/.test(body)) codes.add(ccy);
  }
  if (codes.size === 0)
    throw new Error(`currency-codes: no "N.A." minor units found in ${xmlPath}; has its format changed?`);
  return codes;
}

const notMoney = codesWithoutMinorUnit();

export interface Currency {
  code: string;
  /** Minor-unit digits: 2 for USD (cents), 0 for JPY (amounts are whole yen), 3 for KWD. */
  digits: number;
  /** ISO's English name, e.g. "US Dollar". */
  name: string;
}

/** The active ISO 4217 currency with this upper-case code, or null when it is unknown, withdrawn or not money. */
export function findCurrency(code: string): Currency | null {
  if (!/^[A-Z]{3}$/.test(code) || notMoney.has(code)) return null;
  const record = lookupCode(code);
  return record ? { code: record.code, digits: record.digits, name: record.currency } : null;
}

/** The currency of an `iso4217/<CODE>` unit, or null. */
export function currencyOfUnit(unit: string): Currency | null {
  return unit.startsWith('iso4217/') ? findCurrency(unit.slice('iso4217/'.length)) : null;
}

/** Integer minor units as a decimal string: 1250 with 2 digits is "12.50"; no floating point anywhere. */
export function decimalOf(minor: bigint, digits: number, trim = false): string {
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  let fraction = digits > 0 ? text.slice(-digits) : '';
  if (trim) fraction = fraction.replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
