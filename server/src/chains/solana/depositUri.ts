/**
 * Deposit instructions on Solana chains (chains/adapter.ts `DepositInstructions`, docs/decisions.md §22.2). A
 * deposit is paid in an SPL token of the chain, which lands in the deposit key's associated token account, where
 * detection reads it and the sweep (fee payer pays) moves it. SOL is not offered: detection watches deposit token
 * accounts only, and SOL is never pegged to a currency, so a deposit could not be priced without a rate.
 */
import type { DepositInstructions } from '../adapter.js';
import type { SolanaChain } from './client.js';

/** Minor units as Solana Pay's `amount` wants them: whole units, exact, a leading 0 below 1, no exponent. */
export function solanaPayAmount(minor: bigint, decimals: number): string {
  if (minor < 0n) throw new RangeError('a transfer amount is not negative');
  const digits = minor.toString().padStart(decimals + 1, '0');
  if (decimals === 0) return digits;
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/**
 * A Solana Pay transfer request: `solana:<recipient>?amount=…&spl-token=<mint>&label=…&message=…`. The recipient
 * is the owner (the wallet derives its associated token account); no `reference` is needed, since the deposit
 * address is the payment's own.
 */
export function solanaPayTransferUri(input: {
  recipient: string;
  amount: bigint;
  decimals: number;
  mint: string | null;
  label?: string;
  message?: string;
}): string {
  const params = [`amount=${solanaPayAmount(input.amount, input.decimals)}`];
  if (input.mint !== null) params.push(`spl-token=${input.mint}`);
  if (input.label) params.push(`label=${encodeURIComponent(input.label)}`);
  if (input.message) params.push(`message=${encodeURIComponent(input.message)}`);
  return `solana:${input.recipient}?${params.join('&')}`;
}

export function solanaDepositInstructions(chains: SolanaChain[]): DepositInstructions {
  const chainOf = (caip2: string) => chains.find((c) => c.config.caip2 === caip2);
  return {
    assets(caip2) {
      return (chainOf(caip2)?.config.assets ?? []).filter((a) => a.mint !== null).map((a) => a.caip19);
    },
    paymentUri({ chain: caip2, asset, address, amount, label }) {
      const config = chainOf(caip2)?.config.assets.find((a) => a.caip19 === asset);
      if (!config || config.mint === null) throw new Error(`${asset} is not a token of ${caip2}`);
      return solanaPayTransferUri({ recipient: address, amount, decimals: config.decimals, mint: config.mint, label });
    },
  };
}
