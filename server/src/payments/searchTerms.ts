/**
 * The words the dashboard's `q` finds a payment by (docs/decisions.md §30.4): the words of its description and of its
 * metadata values. Stored in `payment_search_terms` with the payment, so a search is
 * one index range per word instead of a scan of the merchant's payments (a `LIKE '%…%'` over 1M rows, issue 36).
 * The query is cut by the same function, so what is stored and what is asked always agree.
 */
import type { PaymentDetails } from './details.js';

/** The column's width (020_payment_details.ts); a longer word is cut, on both sides alike. */
const MAX_TERM = 64;
/** Bounds the rows one create writes: 1,000 description characters and 50 × 500 of metadata could make thousands. */
const MAX_TERMS_PER_PAYMENT = 200;
export const MAX_QUERY_WORDS = 8;

const cut = (term: string) => [...term].slice(0, MAX_TERM).join('');

/** Lower-cased runs of letters and digits, in order of first appearance, without repeats. */
export function wordsOf(text: string): string[] {
  const words = text
    .toLowerCase()
    .normalize('NFC')
    .split(/[^\p{L}\p{N}]+/u);
  return [...new Set(words.filter((w) => w !== '').map(cut))];
}

/** A payment's search terms; none when it has neither description nor metadata. */
export function searchTermsOf(details: Pick<PaymentDetails, 'description' | 'metadata'>): string[] {
  const terms = new Set<string>();
  if (details.description) for (const w of wordsOf(details.description)) terms.add(w);
  for (const value of Object.values(details.metadata)) for (const w of wordsOf(value)) terms.add(w);
  return [...terms].slice(0, MAX_TERMS_PER_PAYMENT);
}

/** The words a query asks for (every one must match); empty when it has none. */
export function queryTermsOf(q: string): string[] {
  return wordsOf(q).slice(0, MAX_QUERY_WORDS);
}
