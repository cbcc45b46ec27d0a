import type { Knex } from 'knex';
import { paymentsMatching, type ListFilter } from './payments.js';

/**
 * A payment as the CSV export reads it: only the columns it writes, the stages it needs as their stored JSON text
 * (parsed by the export only when set). The list's full row would parse all seven stages and copy every column,
 * which was a third of an export row's time (docs/decisions.md §24.16).
 */
export interface PaymentExportRow {
  id: string;
  reference_id: string;
  status: string;
  amount_value: string;
  amount_unit: string;
  /** A number from SQLite, a decimal string from PostgreSQL's bigint. */
  created_at: number | string;
  processing: string | null;
  success: string | null;
  settled: string | null;
  refunded: string | null;
  description: string | null;
  line_items: string | null;
  metadata: string | null;
  buyer_sealed: string | null;
}

const COLUMNS = [
  'id',
  'reference_id',
  'status',
  'amount_value',
  'amount_unit',
  'created_at',
  'processing',
  'success',
  'settled',
  'refunded',
  'description',
  'line_items',
  'metadata',
  'buyer_sealed',
] as const satisfies readonly (keyof PaymentExportRow)[];

/** One page of the export: the list's filter and order (`paymentsMatching`), the export's columns. */
export async function paymentExportPage(db: Knex, filter: ListFilter): Promise<PaymentExportRow[]> {
  return (await paymentsMatching(db, filter).select(COLUMNS)) as PaymentExportRow[];
}
