/**
 * Fees are exact: bigint minor units and a rational percent, never floats.
 *
 * Rounding rule (docs/decisions.md §11): the percent part is rounded half up to the minor unit
 * (0.5 minor units and above round up); the total never exceeds the amount it is taken from.
 */

import { currencyOfUnit } from '../currencies.js';

export interface Money {
  unit: string;
  value: string;
}

export interface BasePlusPercentConfig {
  kind: 'base_plus_percent';
  /** Fixed part, in the minor units of the unit the fee is charged in. */
  base: Money;
  percent: { numerator: string; denominator: string };
}

export interface FeeBreakdown {
  kind: 'base_plus_percent';
  base_amount: Money;
  percent: { numerator: string; denominator: string };
  percent_amount: Money;
  total_amount: Money;
}

const INTEGER = /^(0|[1-9][0-9]*)$/;

export function parseFeeConfig(raw: unknown): BasePlusPercentConfig {
  const c = raw as BasePlusPercentConfig;
  if (
    typeof c !== 'object' ||
    c === null ||
    c.kind !== 'base_plus_percent' ||
    !INTEGER.test(c.base?.value ?? '') ||
    typeof c.base?.unit !== 'string' ||
    !INTEGER.test(c.percent?.numerator ?? '') ||
    !INTEGER.test(c.percent?.denominator ?? '') ||
    BigInt(c.percent.denominator) === 0n
  ) {
    throw new Error(
      'fee configuration must be {kind:"base_plus_percent", base:{unit,value}, percent:{numerator,denominator>0}}',
    );
  }
  return c;
}

/** Half-up division of non-negative integers: floor((2n + d) / 2d). */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (n < 0n || d <= 0n) throw new RangeError('divRoundHalfUp takes n ≥ 0 and d > 0');
  return (2n * n + d) / (2n * d);
}

/**
 * The fee on `amount`, with the base already expressed in `amount`'s unit (the caller converts a fiat base at the
 * option's quote). The fee is reported beside the settlement amount, not subtracted from it (docs/decisions.md §11).
 */
export function computeFee(config: BasePlusPercentConfig, amount: Money, baseInAmountUnit: bigint): FeeBreakdown {
  const value = BigInt(amount.value);
  const percentAmount = divRoundHalfUp(value * BigInt(config.percent.numerator), BigInt(config.percent.denominator));
  let total = baseInAmountUnit + percentAmount;
  if (total > value) total = value;
  const money = (v: bigint): Money => ({ unit: amount.unit, value: v.toString() });
  return {
    kind: 'base_plus_percent',
    base_amount: money(baseInAmountUnit),
    percent: { numerator: config.percent.numerator, denominator: config.percent.denominator },
    percent_amount: money(percentAmount),
    total_amount: money(total),
  };
}

/**
 * A fiat amount in an asset of `decimals`, at `rate` (fiat major units per whole token; null: the 1:1 peg), rounded
 * up (docs/decisions.md §11). An amount already in the asset's unit is returned as is.
 */
export function fiatInAsset(
  money: Money,
  decimals: number,
  rate: { numerator: string; denominator: string } | null,
): bigint {
  const currency = currencyOfUnit(money.unit);
  if (!currency) return BigInt(money.value);
  const numerator = BigInt(money.value) * 10n ** BigInt(decimals) * BigInt(rate?.denominator ?? '1');
  const denominator = 10n ** BigInt(currency.digits) * BigInt(rate?.numerator ?? '1');
  return (numerator + denominator - 1n) / denominator;
}

/** The fee a merchant's configuration takes on `amount` of an asset, its fiat base converted at `rate`; null: no fee. */
export function feeOnAsset(
  feeConfig: Record<string, unknown> | null,
  amount: Money,
  decimals: number,
  rate: { numerator: string; denominator: string } | null,
): FeeBreakdown | null {
  if (feeConfig === null) return null;
  const config = parseFeeConfig(feeConfig);
  return computeFee(config, amount, fiatInAsset(config.base, decimals, rate));
}
