/**
 * The model beside the real server: what each party sent and may be owed, kept from what the sequence did and what
 * the chain shows, never from the server's own bookkeeping of the outcome under test.
 */
import type { Address } from 'viem';
import type { Buyer } from './settlementModel.world.js';

export interface ModelRefund {
  id: string;
  paymentIndex: number;
  amount: bigint;
  /** The one-time claim link's token, while a claim is possible. */
  token: string | null;
  /** Where the buyer claimed it to (a fresh address per claim). */
  claimedTo: Address | null;
}

export interface ModelPayment {
  id: string;
  /** The merchant's mode when the payment was created: the mode the payment keeps (decisions §22.1). */
  mode: 'direct' | 'collected';
  /** The asked amount in TUSD minor units (a USD cent is 10,000 of them). */
  asked: bigint;
  buyer: Buyer;
  /** TUSD the buyer was funded with. */
  funded: bigint;
  deposit: Address | null;
  /** What the buyer's transfers put at each address, as mined (a transfer reorged out is taken back). */
  sentTo: Map<Address, bigint>;
}

export interface Model {
  mode: 'direct' | 'collected';
  payments: ModelPayment[];
  refunds: ModelRefund[];
  steps: number;
}

export function newModel(): Model {
  return { mode: 'collected', payments: [], refunds: [], steps: 0 };
}

export const sentTotal = (p: ModelPayment) => [...p.sentTo.values()].reduce((a, b) => a + b, 0n);

/** What the buyer put anywhere but the merchant's own address: money the operator holds for the payment. */
export const heldFor = (p: ModelPayment, merchantAddress: Address) =>
  [...p.sentTo.entries()].filter(([to]) => to !== merchantAddress).reduce((a, [, v]) => a + v, 0n);

export function recordSent(p: ModelPayment, to: Address, amount: bigint): void {
  if (amount === 0n) return;
  p.sentTo.set(to, (p.sentTo.get(to) ?? 0n) + amount);
}
