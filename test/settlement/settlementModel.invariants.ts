/**
 * The invariants of settlement, checked after every step of a model sequence against the chain and the database:
 * no party receives more than it is owed, the ledger equals the chain, no balance is negative, a payment's money is
 * in at most one outgoing move, and every succeeded payment's fee is collected exactly once.
 */
import { getAddress } from 'viem';
import { feeBalances, unpaidBalances } from '../../server/src/settlement/ledger.js';
import { heldFor, sentTotal, type Model } from './settlementModel.model.js';
import type { World } from './settlementModel.world.js';

export class InvariantViolation extends Error {
  constructor(
    readonly invariant: string,
    detail: string,
  ) {
    super(`invariant "${invariant}" violated: ${detail}`);
  }
}

function violated(invariant: string, detail: string): never {
  throw new InvariantViolation(invariant, detail);
}

const KNOWN_KINDS = [
  'received',
  'fee',
  'payable',
  'swept',
  'paid_out',
  'fee_paid',
  'refunded',
  'refund_released',
  'fee_invoiced',
];
const REFUND_HOLDS = ['awaiting_claim', 'planned', 'sent', 'final'];
const MOVE_HOLDS = ['planned', 'sent', 'final'];

interface LedgerRow {
  kind: string;
  payment_id: string | null;
  amount: string;
  mode: string;
}

async function ledgerRows(world: World): Promise<LedgerRow[]> {
  return (await world.runtime.db
    .knex('ledger_entries')
    .where({ merchant_id: world.account.merchantId })
    .select('kind', 'payment_id', 'amount', 'mode')) as LedgerRow[];
}

const states = (rows: { payment_id: string; state: string }[], id: string) =>
  rows
    .filter((r) => r.payment_id === id)
    .map((r) => r.state)
    .join(', ') || 'none';

const sumOf = (rows: { amount: string }[]) => rows.reduce((a, r) => a + BigInt(r.amount), 0n);

async function movesInFlight(world: World): Promise<number> {
  const knex = world.runtime.db.knex;
  const counts = await Promise.all([
    knex('sweeps').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
    knex('payouts').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
    knex('onchain_refunds').whereIn('state', ['planned', 'sent']).count({ n: '*' }),
  ]);
  return counts.reduce((s, r) => s + Number((r[0] as { n: number | string }).n), 0);
}

/** Every invariant that holds after any step. */
export async function checkStep(world: World, model: Model): Promise<void> {
  const knex = world.runtime.db.knex;
  const ledger = await ledgerRows(world);
  const refunds = (await knex('onchain_refunds')
    .where({ merchant_id: world.account.merchantId })
    .select('id', 'payment_id', 'amount', 'state')) as {
    id: string;
    payment_id: string;
    amount: string;
    state: string;
  }[];
  const items = (await knex('payout_items')
    .join('payouts', 'payouts.id', 'payout_items.payout_id')
    .whereIn('payouts.state', MOVE_HOLDS)
    // What a payout moves of a payment: its net to the merchant and its fee to the treasury (a final refund taken
    // before the payout is planned is already out of the net; the gross still counts it).
    .select('payout_items.payment_id', 'payout_items.net', 'payout_items.fee', 'payouts.state')) as {
    payment_id: string;
    net: string;
    fee: string;
    state: string;
  }[];

  // Fees: never two for one payment, whatever the mode switches.
  for (const p of model.payments) {
    const fees = ledger.filter((r) => r.kind === 'fee' && r.payment_id === p.id);
    if (fees.length > 1) violated('fee collected exactly once', `payment ${p.id} has ${fees.length} fee rows`);
  }

  // At most one outgoing move: what payouts and refunds hold of a payment never exceeds what it received.
  for (const p of model.payments) {
    const held = heldFor(p, world.payoutAddress);
    const paidOut = items.filter((i) => i.payment_id === p.id).reduce((a, i) => a + BigInt(i.net) + BigInt(i.fee), 0n);
    const refunding = sumOf(refunds.filter((r) => r.payment_id === p.id && REFUND_HOLDS.includes(r.state)));
    if (paidOut + refunding > held)
      violated(
        'a payment’s money is in at most one outgoing move',
        `payment ${p.id} (${p.mode}) received ${held} in the operator's accounts, but payouts hold ${paidOut} (${states(items, p.id)}) and refunds ${refunding} (${states(refunds, p.id)}) of it`,
      );
  }

  // Every balance ≥ 0.
  for (const b of await unpaidBalances(knex, { merchantId: world.account.merchantId }))
    if (b.amount < 0n) violated('every balance ≥ 0', `the merchant's unpaid balance is ${b.amount} in ${b.asset}`);
  for (const b of await feeBalances(knex, { merchantId: world.account.merchantId }))
    if (b.amount < 0n) violated('every balance ≥ 0', `the merchant's fee balance is ${b.amount} in ${b.asset}`);

  // No party receives more than it is owed.
  let merchantOwed = 0n;
  for (const [index, p] of model.payments.entries()) {
    merchantOwed += p.sentTo.get(world.payoutAddress) ?? 0n;
    const mine = model.refunds.filter((r) => r.paymentIndex === index);
    // A buyer is owed at most what it sent and what the merchant refunded.
    let received = (await world.balance(p.buyer.account.address)) - (p.funded - sentTotal(p));
    for (const r of mine) if (r.claimedTo) received += await world.balance(r.claimedTo);
    const refunded = mine.reduce((a, r) => a + r.amount, 0n);
    if (received > sentTotal(p) || received > refunded)
      violated(
        'no party receives more than it is owed',
        `the buyer of ${p.id} received ${received} back, having sent ${sentTotal(p)} and been refunded ${refunded}`,
      );
    // The merchant is owed the payment's payable less what its refunds took beyond the payment's excess.
    const payable = sumOf(ledger.filter((r) => r.kind === 'payable' && r.payment_id === p.id));
    const live = refunds.filter((r) => r.payment_id === p.id && REFUND_HOLDS.includes(r.state));
    const excess = heldFor(p, world.payoutAddress) - p.asked;
    const taken = sumOf(live) - (excess > 0n ? excess : 0n);
    merchantOwed += payable - (taken > 0n ? taken : 0n);
  }
  const merchantGot = await world.balance(world.payoutAddress);
  if (merchantGot > merchantOwed)
    violated(
      'no party receives more than it is owed',
      `the merchant's payout address holds ${merchantGot}, but it is owed ${merchantOwed} (direct payments and payables less refunds)`,
    );
  // The treasury is owed the collected fees; a kind of row this test does not know (a charge a later change adds,
  // such as a refund's network cost borne by the merchant) is counted as owed to it too, so the check stays an upper
  // bound rather than a description of today's kinds.
  const fees = sumOf(
    ledger.filter((r) => (r.kind === 'fee' && r.mode === 'collected') || !KNOWN_KINDS.includes(r.kind)),
  );
  const treasuryGot = await world.balance(world.treasury);
  if (treasuryGot > fees)
    violated('no party receives more than it is owed', `the treasury holds ${treasuryGot}, collected fees are ${fees}`);

  // The ledger equals the chain for every deposit, the collection and the treasury. Money moving (a move planned or
  // sent) and a transfer not yet detected (more at a deposit than its ledger says) are the only allowed gaps.
  const result = await world.runtime.reconciler!.run();
  const moving = (await movesInFlight(world)) > 0;
  for (const d of result.differences) {
    if (d.role === 'deposit' && d.difference > 0n) continue;
    if (moving) continue;
    violated(
      'the ledger equals the chain',
      `${d.role} ${getAddress(d.address)} holds ${d.actual} on chain, the ledger says ${d.expected}`,
    );
  }
}

/** After the sequence was driven to completion: every succeeded payment's fee, once, in the payment's own mode. */
export async function checkEnd(world: World, model: Model): Promise<void> {
  await checkStep(world, model);
  const knex = world.runtime.db.knex;
  const ledger = await ledgerRows(world);
  for (const p of model.payments) {
    const row = (await knex('payments').where({ id: p.id }).first('status', 'settlement_mode')) as {
      status: string;
      settlement_mode: string;
    };
    if (row.settlement_mode !== p.mode)
      violated(
        'the payment’s own mode decides',
        `payment ${p.id} was created ${p.mode}, stored ${row.settlement_mode}`,
      );
    if (row.status !== 'succeeded') continue;
    const fees = ledger.filter((r) => r.kind === 'fee' && r.payment_id === p.id);
    if (fees.length !== 1)
      violated('fee collected exactly once', `succeeded ${p.mode} payment ${p.id} has ${fees.length} fee rows`);
    if (fees[0]!.mode !== p.mode)
      violated(
        'the payment’s own mode decides',
        `${p.mode} payment ${p.id} has its fee in ${fees[0]!.mode} mode (the buyer paid per the merchant's current mode)`,
      );
  }
}
