/**
 * The merchant's settlement mode (docs/decisions.md §22): `direct`, the buyer pays the merchant's address and the fee
 * accrues to a fee balance; `collected`, the buyer pays a deposit address derived from the operator's deposit seed
 * and the operator pays the merchant out. A merchant may be `collected` only where that can work: the server holds a
 * deposit seed, and the merchant has a settlement (payout) address to be paid out to. A payment keeps the mode its
 * merchant had when it was created (payments.settlement_mode).
 */
import type { SettlementMode } from '../db/queries/accounts.js';
import { ApiError } from '../errors.js';

export type { SettlementMode };

/** The mode of a merchant created without one. */
export const DEFAULT_SETTLEMENT_MODE: SettlementMode = 'direct';

export function isSettlementMode(value: unknown): value is SettlementMode {
  return value === 'direct' || value === 'collected';
}

export interface SettlementModeContext {
  /** Whether the server has a deposit seed (PAYGATE_DEPOSIT_SEED, or development's generated one). */
  depositSeed: boolean;
}

/** Refuses a merchant state that cannot settle: `collected` without the seed or without any payout address. */
export function checkSettlementMode(
  mode: SettlementMode,
  settlementAddresses: Record<string, string>,
  context: SettlementModeContext,
): void {
  if (mode !== 'collected') return;
  if (!context.depositSeed) {
    throw new ApiError(
      'params_validation',
      "Collected settlement needs the server's deposit seed (PAYGATE_DEPOSIT_SEED), which is not configured.",
      { param: 'settlementMode' },
    );
  }
  if (Object.keys(settlementAddresses).length === 0) {
    throw new ApiError(
      'params_validation',
      'Collected settlement pays the merchant out to its settlement addresses; set at least one first.',
      { param: 'settlementMode' },
    );
  }
}
