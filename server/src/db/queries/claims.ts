import type { Knex } from 'knex';

/** A claim as stored; `kind` is the adapter's own word for how the option pays (opaque here). */
export interface ClaimRow {
  id: string;
  paymentId: string;
  claimKey: string;
  kind: string;
  chain: string;
  account: string;
  txId: string | null;
  state: string;
  details: Record<string, unknown>;
  optionDigest: string;
  resultsDigest: string;
  createdAt: number;
  updatedAt: number;
}

interface Raw {
  id: string;
  payment_id: string;
  claim_key: string;
  kind: string;
  chain_caip2: string;
  account_caip10: string;
  option_digest: string;
  results_digest: string;
  tx_id: string | null;
  state: string;
  details: string;
  created_at: number | string;
  updated_at: number | string;
}

function fromRaw(raw: Raw): ClaimRow {
  return {
    id: raw.id,
    paymentId: raw.payment_id,
    claimKey: raw.claim_key,
    kind: raw.kind,
    chain: raw.chain_caip2,
    account: raw.account_caip10,
    optionDigest: raw.option_digest,
    resultsDigest: raw.results_digest,
    txId: raw.tx_id,
    state: raw.state,
    details: JSON.parse(raw.details) as Record<string, unknown>,
    createdAt: Number(raw.created_at),
    updatedAt: Number(raw.updated_at),
  };
}

export async function insertClaim(db: Knex | Knex.Transaction, row: ClaimRow): Promise<void> {
  await db('payment_claims').insert({
    id: row.id,
    payment_id: row.paymentId,
    claim_key: row.claimKey,
    kind: row.kind,
    chain_caip2: row.chain,
    account_caip10: row.account,
    option_digest: row.optionDigest,
    results_digest: row.resultsDigest,
    tx_id: row.txId,
    state: row.state,
    details: JSON.stringify(row.details),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  });
}

export async function findClaimOfPayment(db: Knex | Knex.Transaction, paymentId: string): Promise<ClaimRow | null> {
  const raw = (await db('payment_claims').where({ payment_id: paymentId }).first()) as Raw | undefined;
  return raw ? fromRaw(raw) : null;
}

export async function updateClaim(
  db: Knex | Knex.Transaction,
  paymentId: string,
  change: { txId?: string | null; state?: string; details?: Record<string, unknown>; updatedAt: number },
): Promise<void> {
  await db('payment_claims')
    .where({ payment_id: paymentId })
    .update({
      ...(change.txId !== undefined ? { tx_id: change.txId } : {}),
      ...(change.state !== undefined ? { state: change.state } : {}),
      ...(change.details !== undefined ? { details: JSON.stringify(change.details) } : {}),
      updated_at: change.updatedAt,
    });
}
