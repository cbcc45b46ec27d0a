import type { Knex } from 'knex';

export interface SolanaPayRequestRow {
  reference: string;
  paymentId: string;
  chain: string;
  optionId: string;
  lastValidBlockHeight: bigint;
  createdAt: number;
}

interface Raw {
  reference: string;
  payment_id: string;
  chain_caip2: string;
  option_id: string;
  last_valid_block_height: number | string;
  created_at: number | string;
}

export async function insertSolanaPayRequest(db: Knex | Knex.Transaction, row: SolanaPayRequestRow): Promise<void> {
  await db('solana_pay_requests').insert({
    reference: row.reference,
    payment_id: row.paymentId,
    chain_caip2: row.chain,
    option_id: row.optionId,
    last_valid_block_height: row.lastValidBlockHeight.toString(),
    done: false,
    created_at: row.createdAt,
  });
}

/** The requests of a payment that may still land unseen, oldest first. */
export async function openSolanaPayRequests(
  db: Knex | Knex.Transaction,
  paymentId: string,
): Promise<SolanaPayRequestRow[]> {
  const rows = (await db('solana_pay_requests')
    .where({ payment_id: paymentId, done: false })
    .orderBy([{ column: 'created_at' }, { column: 'reference' }])) as Raw[];
  return rows.map((raw) => ({
    reference: raw.reference,
    paymentId: raw.payment_id,
    chain: raw.chain_caip2,
    optionId: raw.option_id,
    lastValidBlockHeight: BigInt(raw.last_valid_block_height),
    createdAt: Number(raw.created_at),
  }));
}

export async function countOpenSolanaPayRequests(db: Knex | Knex.Transaction, paymentId: string): Promise<number> {
  const row = (await db('solana_pay_requests')
    .where({ payment_id: paymentId, done: false })
    .count({ n: '*' })
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

export async function closeSolanaPayRequest(db: Knex | Knex.Transaction, reference: string): Promise<void> {
  await db('solana_pay_requests').where({ reference }).update({ done: true });
}
