import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';
import { paymentsMatching, type ListFilter } from './payments.js';

/**
 * A payment as the CSV export reads it: only the columns it writes, and of the stages' JSON only the seven fields
 * it writes, extracted by the database. The list's full row made the export copy every stage's whole JSON text into
 * JavaScript and parse it there, which was most of an export row's time after the row fetch (docs/decisions.md
 * §24.16). A field absent from its stage (or a stage not reached) is null.
 */
export interface PaymentExportRow {
  id: string;
  reference_id: string;
  status: string;
  amount_value: string;
  amount_unit: string;
  /** A number from SQLite, a decimal string from PostgreSQL's bigint. */
  created_at: number | string;
  succeeded_at: string | null;
  settled_at: string | null;
  refunded_at: string | null;
  fee_value: string | null;
  fee_unit: string | null;
  chain: string | null;
  tx_id: string | null;
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
  'description',
  'line_items',
  'metadata',
  'buyer_sealed',
] as const satisfies readonly (keyof PaymentExportRow)[];

/** Each extracted field: its name in the row, its stage column, its path inside the stage's JSON object. */
const STAGE_FIELDS: readonly [keyof PaymentExportRow, string, readonly string[]][] = [
  ['succeeded_at', 'success', ['succeeded_at']],
  ['settled_at', 'settled', ['settled_at']],
  ['refunded_at', 'refunded', ['refunded_at']],
  ['fee_value', 'processing', ['fee', 'total_amount', 'value']],
  ['fee_unit', 'processing', ['fee', 'total_amount', 'unit']],
  ['chain', 'processing', ['chain_caip2']],
  ['tx_id', 'success', ['tx_id']],
];

/**
 * The stage columns are text holding a JSON object (001_initial.ts); both databases answer a JSON string as its
 * unescaped text and a missing path or a JSON null as SQL NULL, as `JSON.parse` and `?.` did. Names and paths are
 * the constants above, never input.
 */
function stageSelects(db: Knex): Knex.Raw[] {
  const postgres = dialectOf(db) === 'postgres';
  return STAGE_FIELDS.map(([name, column, path]) =>
    postgres
      ? db.raw(`(??::json #>> '{${path.join(',')}}') as ??`, [column, name])
      : db.raw(`json_extract(??, '$.${path.join('.')}') as ??`, [column, name]),
  );
}

/**
 * Rows per page of the payments export (docs/decisions.md §24.16). PostgreSQL: 2,000, because each page is a round
 * trip to another process, and on a loaded machine each one waits for the scheduler on both sides; at 100k
 * payments pages of 2,000 streamed 35–60% more rows a second than pages of 500. SQLite: 500, because a page holds
 * the one connection every write waits for, and in-process pages cost no round trip (2,000 was not faster).
 */
export function paymentExportPageSize(db: Knex): number {
  return dialectOf(db) === 'postgres' ? 2000 : 500;
}

/** One page of the export: the list's filter and order (`paymentsMatching`), the export's columns. */
export async function paymentExportPage(db: Knex, filter: ListFilter): Promise<PaymentExportRow[]> {
  return (await paymentsMatching(db, filter).select([...COLUMNS, ...stageSelects(db)])) as PaymentExportRow[];
}
