/**
 * The static price table of test mode: chains of mode `test` that configure no price feeds (the local chain, the
 * testnet presets) are priced from it, so test payments quote without an oracle. Its numbers are plausible, not
 * current; a live chain is never priced from it. PAYGATE_RATES_FILE adds pairs or overrides built-in ones.
 */
import { readFileSync } from 'node:fs';
import { PRICE_PAIR } from '../chains/index.js';
import { ConfigError } from '../config.js';
import { parseDecimal, type Ratio } from './rational.js';
import { splitPair } from './routes.js';

/** `BASE/QUOTE` → QUOTE per BASE, as decimal strings. Cross rates (ETH in EUR, EUR in JPY) go through USD. */
export const BUILT_IN_RATES: Readonly<Record<string, string>> = {
  'ETH/USD': '3000',
  'POL/USD': '0.25',
  'SOL/USD': '150',
  'EUR/USD': '1.08',
  'GBP/USD': '1.25',
  'USD/JPY': '150',
};

/** Pair → exact price. */
export type StaticRates = ReadonlyMap<string, Ratio>;

function parseTable(table: Readonly<Record<string, unknown>>, problem: (message: string) => Error): Map<string, Ratio> {
  const rates = new Map<string, Ratio>();
  for (const [pair, value] of Object.entries(table)) {
    const [base, quote] = PRICE_PAIR.test(pair) ? splitPair(pair) : ['', ''];
    if (!base || base === quote) throw problem(`"${pair}" is not a pair BASE/QUOTE of two sides, e.g. "ETH/USD"`);
    // A JSON number is a float by the time JSON.parse returns it, so prices are strings, read exactly.
    const price = typeof value === 'string' ? parseDecimal(value) : null;
    if (!price) throw problem(`"${pair}" must be a positive decimal string such as "3000.25"`);
    rates.set(pair, price);
  }
  return rates;
}

/** The built-in table with the pairs of `file` (a JSON object of `"BASE/QUOTE": "decimal"`) over it. */
export function loadStaticRates(file: string | null = null): StaticRates {
  const rates = parseTable(BUILT_IN_RATES, (message) => new Error(`BUILT_IN_RATES: ${message}`));
  if (file === null) return rates;
  const problem = (message: string) => new ConfigError('PAYGATE_RATES_FILE', `file ${file}: ${message}`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw problem(code ? `cannot be read (${code})` : `is not valid JSON (${(err as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw problem('must be a JSON object of "BASE/QUOTE": "price" entries');
  }
  for (const [pair, price] of parseTable(doc as Record<string, unknown>, problem)) {
    // `USD/ETH` in the file replaces a built-in `ETH/USD` too, which would otherwise win as the direct pair.
    const [base, quote] = splitPair(pair);
    rates.delete(`${quote}/${base}`);
    rates.set(pair, price);
  }
  return rates;
}
