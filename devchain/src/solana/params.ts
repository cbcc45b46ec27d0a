/**
 * Reading JSON-RPC params the way Agave does: positional arguments, an optional config object last, camelCase
 * fields, and `Invalid params` (-32602) for anything else.
 */
import { isAddress, type Address } from '@solana/kit';
import { RPC_ERROR, RpcError, invalidParams } from './errors.js';
import type { Commitment, LocalLedger } from './ledger.js';

export type Params = readonly unknown[];
export type Config = Record<string, unknown>;

export function config(params: Params, index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`parameter ${index} must be an object`);
  return value as Config;
}

export function address(value: unknown, what = 'address'): Address {
  if (typeof value !== 'string' || !isAddress(value)) throw invalidParams(`invalid ${what}: ${String(value)}`);
  return value;
}

export function string(value: unknown, what: string): string {
  if (typeof value !== 'string') throw invalidParams(`${what} must be a string`);
  return value;
}

/** A non-negative integer, as a JSON number or (beyond 2^53) the bigint the parser made of it. */
export function u64(value: unknown, what: string): bigint {
  if (typeof value === 'bigint' && value >= 0n && value < 2n ** 64n) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  throw invalidParams(`${what} must be a non-negative integer`);
}

export function boolean(value: unknown, what: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidParams(`${what} must be a boolean`);
  return value;
}

export function commitment(cfg: Config): Commitment {
  const value = cfg.commitment ?? 'finalized';
  if (value === 'processed' || value === 'confirmed' || value === 'finalized') return value;
  throw invalidParams(`unknown variant \`${String(value)}\`, expected one of processed, confirmed, finalized`);
}

/** Agave's minContextSlot check: the node must have reached that slot at the request's commitment. */
export function contextSlot(ledger: LocalLedger, cfg: Config): bigint {
  const slot = ledger.slot(commitment(cfg));
  if (cfg.minContextSlot !== undefined && cfg.minContextSlot !== null) {
    if (u64(cfg.minContextSlot, 'minContextSlot') > slot) {
      throw new RpcError(RPC_ERROR.minContextSlotNotReached, 'Minimum context slot has not been reached', {
        contextSlot: slot,
      });
    }
  }
  return slot;
}

/** The `{ context, value }` wrapper of Solana RPC's contextual responses. */
export function withContext(apiVersion: string, slot: bigint, value: unknown) {
  return { context: { apiVersion, slot }, value };
}
