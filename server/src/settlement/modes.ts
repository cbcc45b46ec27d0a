/**
 * The registry of settlement modes (docs/decisions.md §25.1): a payment's stored mode (payments.settlement_mode, its
 * merchant's when it was created) to the implementation of settlement/mode.ts. The one place that reads a payment's
 * mode and the one place that knows the modes' folders besides the composition root (runtime.ts, which registers
 * their jobs); a third mode is a folder implementing the port and one line here.
 */
import type { Knex } from 'knex';
import type { SettlementMode as SettlementModeName } from '../db/queries/accounts.js';
import type { EventRow } from '../db/queries/events.js';
import { findPayment, settlementModeOfPayment, type PaymentRow } from '../db/queries/payments.js';
import type { EventHook } from '../payments/lifecycle.js';
import { collectedMode } from './collected/index.js';
import { directMode } from './direct/index.js';
import type { SettlementMode, SucceededDeps } from './mode.js';

const MODES: { readonly [Name in SettlementModeName]: SettlementMode } = {
  direct: directMode,
  collected: collectedMode,
};

/** The mode of this name; a name no mode has is a corrupt row, never a default. */
export function settlementModeNamed(name: SettlementModeName): SettlementMode {
  const mode = MODES[name] as SettlementMode | undefined;
  if (!mode) throw new Error(`no settlement mode is named ${JSON.stringify(name)}`);
  return mode;
}

/**
 * The mode the payment was created under, whatever its merchant's is now (§22.14): the row's own column, which no
 * write changes after the insert. Read by id only for a row that does not carry it (the one a create answers); an
 * unknown payment is direct, the mode in which Paygate holds nothing of it.
 */
export async function settlementModeOf(
  db: Knex | Knex.Transaction,
  payment: Pick<PaymentRow, 'id' | 'settlement_mode'>,
): Promise<SettlementMode> {
  if (payment.settlement_mode) return settlementModeNamed(payment.settlement_mode);
  return settlementModeNamed((await settlementModeOfPayment(db, payment.id)) ?? 'direct');
}

/**
 * "After success", one way for every mode: in the transaction of each `payment.succeeded` event (whichever path made
 * the payment succeed), its mode's `onSucceeded`. Registered once by the composition root.
 */
export function settlementHook(deps: SucceededDeps): EventHook {
  const hook: EventHook = async (trx: Knex.Transaction, event: EventRow) => {
    if (event.type !== 'payment.succeeded') return;
    const payment = await findPayment(trx, event.payment_id);
    if (!payment) return;
    const mode = await settlementModeOf(trx, payment);
    await mode.onSucceeded(deps, trx, payment);
  };
  // It acts on `payment.succeeded` only.
  hook.onCreated = 'nothing';
  return hook;
}
