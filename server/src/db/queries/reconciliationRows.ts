import type { Knex } from 'knex';

/** Every deposit address of a chain (reconciliation reads each one's balance). */
export async function depositAddressesOn(db: Knex | Knex.Transaction, chain: string): Promise<string[]> {
  const rows = (await db('deposit_addresses').where('chain_caip2', chain).orderBy('address').select('address')) as {
    address: string;
  }[];
  return rows.map((r) => r.address);
}

/** The payment each deposit address was given to, and its mode: a finding at the address is recorded against it. */
export async function depositOwners(
  db: Knex | Knex.Transaction,
  chain: string,
  addresses: string[],
): Promise<Map<string, { paymentId: string; live: boolean }>> {
  const owners = new Map<string, { paymentId: string; live: boolean }>();
  if (addresses.length === 0) return owners;
  const rows = (await db('deposit_addresses')
    .join('payments', 'payments.id', 'deposit_addresses.payment_id')
    .where('deposit_addresses.chain_caip2', chain)
    .whereIn('deposit_addresses.address', addresses)
    .select('deposit_addresses.address', 'deposit_addresses.payment_id', 'payments.live')) as {
    address: string;
    payment_id: string;
    live: boolean | number;
  }[];
  for (const r of rows) owners.set(r.address, { paymentId: r.payment_id, live: r.live === true || r.live === 1 });
  return owners;
}

/** A move that may be on its way on chain: its funds can be on either side of it for a while. */
export interface MoveInFlight {
  chain: string;
  asset: string;
  /** The deposit it takes funds from (a sweep), or null when it leaves the collection account. */
  fromDeposit: string | null;
  /** Whether it pays the treasury (a payout with a fee). */
  paysTreasury: boolean;
}

const OPEN_MOVES = ['planned', 'sent'];

export async function movesInFlight(db: Knex | Knex.Transaction): Promise<MoveInFlight[]> {
  const sweeps = (await db('sweeps')
    .whereIn('state', OPEN_MOVES)
    .select('chain_caip2', 'asset_caip19', 'from_address')) as Record<string, string>[];
  const payouts = (await db('payouts')
    .whereIn('state', OPEN_MOVES)
    .select('chain_caip2', 'asset_caip19', 'fee')) as Record<string, string>[];
  const refunds = (await db('onchain_refunds')
    .whereIn('state', OPEN_MOVES)
    .select('chain_caip2', 'asset_caip19')) as Record<string, string>[];
  return [
    ...sweeps.map((r) => ({
      chain: r.chain_caip2!,
      asset: r.asset_caip19!,
      fromDeposit: r.from_address!,
      paysTreasury: false,
    })),
    ...payouts.map((r) => ({
      chain: r.chain_caip2!,
      asset: r.asset_caip19!,
      fromDeposit: null,
      paysTreasury: BigInt(r.fee!) > 0n,
    })),
    ...refunds.map((r) => ({ chain: r.chain_caip2!, asset: r.asset_caip19!, fromDeposit: null, paysTreasury: false })),
  ];
}

/**
 * Refunds the ledger already counts (`refunded` is written when the merchant asks, to reserve the funds) whose money
 * has not left the collection account: waiting for the buyer's address, or planned and not sent yet.
 */
export async function refundsNotSent(
  db: Knex | Knex.Transaction,
): Promise<{ chain: string; asset: string; amount: bigint }[]> {
  const rows = (await db('onchain_refunds')
    .whereIn('state', ['awaiting_claim', 'planned'])
    .select('chain_caip2', 'asset_caip19', 'amount')) as Record<string, string>[];
  return rows.map((r) => ({ chain: r.chain_caip2!, asset: r.asset_caip19!, amount: BigInt(r.amount!) }));
}
