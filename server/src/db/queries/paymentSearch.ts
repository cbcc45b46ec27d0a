/**
 * `payment_search_terms` (docs/decisions.md §30.4): a payment's words, written with it, read by the dashboard's `q`.
 */
import type { Knex } from 'knex';

/** A new payment and its words (creates.ts's CreateRows has this shape). */
interface WithTerms {
  payment: { id: string; merchant_id: string; live: boolean; created_at: number };
  terms?: string[];
}

/** The search terms of new payments, in the transaction that inserts them (the plain path; creates.ts batches). */
export async function insertSearchTerms(trx: Knex.Transaction, creates: WithTerms[]): Promise<void> {
  const rows = creates.flatMap(({ payment: p, terms }) =>
    (terms ?? []).map((term) => ({
      merchant_id: p.merchant_id,
      live: p.live,
      term,
      created_at: p.created_at,
      payment_id: p.id,
    })),
  );
  // Chunks keep a long batch under SQLite's bound-parameter limit.
  for (let i = 0; i < rows.length; i += 500) await trx('payment_search_terms').insert(rows.slice(i, i + 500));
}

/**
 * Keeps the payments that have every term. Each test is a probe of the terms' primary key with all of its columns
 * (merchant, mode, term, created_at, id), so PostgreSQL and SQLite answer it from the index whichever side they start
 * from: the newest payments, probing each, or a rare word's few rows, joined to the payments by id.
 */
export function whereHasTerms(
  query: Knex.QueryBuilder,
  db: Knex,
  scope: { merchantId: string; live: boolean },
  terms: string[],
): void {
  for (const term of terms) {
    void query.whereExists(
      db('payment_search_terms as st')
        .select(db.raw('1'))
        .where({ 'st.merchant_id': scope.merchantId, 'st.live': scope.live, 'st.term': term })
        .whereRaw('st.created_at = payments.created_at')
        .whereRaw('st.payment_id = payments.id'),
    );
  }
}
