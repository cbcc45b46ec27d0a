import type { Knex } from 'knex';

export interface PosCatalogueRow {
  name: string;
  unitAmount: string;
}

export interface PosTerminalRow {
  id: string;
  merchant_id: string;
  live: boolean;
  name: string;
  /** ISO 4217 code. */
  currency: string;
  key_prefix: string;
  key_hash: string;
  catalogue: PosCatalogueRow[];
  tip_percents: number[];
  created_at: number;
  revoked_at: number | null;
}

type RawTerminal = Omit<PosTerminalRow, 'live' | 'catalogue' | 'tip_percents'> & {
  live: boolean | number;
  catalogue: string;
  tip_percents: string;
};

function fromRaw(raw: RawTerminal): PosTerminalRow {
  return {
    ...raw,
    live: raw.live === true || raw.live === 1,
    catalogue: JSON.parse(raw.catalogue) as PosCatalogueRow[],
    tip_percents: JSON.parse(raw.tip_percents) as number[],
    created_at: Number(raw.created_at),
    revoked_at: raw.revoked_at === null ? null : Number(raw.revoked_at),
  };
}

export async function insertPosTerminal(db: Knex | Knex.Transaction, row: PosTerminalRow): Promise<void> {
  await db('pos_terminals').insert({
    ...row,
    catalogue: JSON.stringify(row.catalogue),
    tip_percents: JSON.stringify(row.tip_percents),
  });
}

export async function findPosTerminal(db: Knex | Knex.Transaction, id: string): Promise<PosTerminalRow | null> {
  const raw = (await db('pos_terminals').where({ id }).first()) as RawTerminal | undefined;
  return raw ? fromRaw(raw) : null;
}

export async function listPosTerminalRows(
  db: Knex | Knex.Transaction,
  merchantId: string,
  live: boolean,
): Promise<PosTerminalRow[]> {
  const rows = (await db('pos_terminals')
    .where({ merchant_id: merchantId, live })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(200)) as RawTerminal[];
  return rows.map(fromRaw);
}

/** True when this call revoked it; false when it was already revoked (a concurrent revocation wins cleanly). */
export async function markPosTerminalRevoked(db: Knex | Knex.Transaction, id: string, at: number): Promise<boolean> {
  const changed = await db('pos_terminals').where({ id }).whereNull('revoked_at').update({ revoked_at: at });
  return changed === 1;
}

export interface PosPaymentRow {
  payment_id: string;
  pos_id: string;
  subtotal: string;
  tip: string;
}

export async function insertPosPayment(db: Knex | Knex.Transaction, row: PosPaymentRow): Promise<void> {
  await db('pos_payments').insert(row);
}

export async function findPosPayment(db: Knex | Knex.Transaction, paymentId: string): Promise<PosPaymentRow | null> {
  return ((await db('pos_payments').where({ payment_id: paymentId }).first()) as PosPaymentRow | undefined) ?? null;
}
