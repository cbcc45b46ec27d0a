/**
 * The Solana side of collected settlement (chains/adapter.ts `SettlementPort`): the keys derived from the deposit
 * seed and what the chain holds at them. A deposit of an SPL token sits in the deposit key's associated token
 * account; a balance is read at the chain's configured commitment.
 */
import type { Address } from '@solana/kit';
import type { KeyRole, SettlementPort } from '../adapter.js';
import type { SolanaChain } from './client.js';
import { solanaSettlementKeys, type SolanaSettlementKeys } from './depositKeys.js';
import { solanaDepositScan } from './depositScan.js';
import { solanaDepositInstructions } from './depositUri.js';
import { solanaMoveSender } from './moveSender.js';
import { associatedTokenAccount, mintOf } from './transfer.js';

export interface SolanaSettlement extends SettlementPort {
  keys: SolanaSettlementKeys;
}

export function solanaChainOf(chains: SolanaChain[], caip2: string): SolanaChain {
  const chain = chains.find((c) => c.config.caip2 === caip2);
  if (!chain) throw new Error(`${caip2} is not a configured Solana chain`);
  return chain;
}

export function createSolanaSettlement(chains: SolanaChain[], seed: Uint8Array): SolanaSettlement {
  const keys = solanaSettlementKeys(seed);
  return {
    keys,
    deposits: solanaDepositInstructions(chains),
    keyAddress: async (_chain: string, role: KeyRole) => keys.address(role),
    scanner: solanaDepositScan(chains),
    mover: solanaMoveSender(chains, keys),
    async balance(caip2, asset, address) {
      const chain = solanaChainOf(chains, caip2);
      if (!chain.config.assets.some((a) => a.caip19 === asset)) throw new Error(`${asset} is not an asset of ${caip2}`);
      const commitment = chain.config.commitment;
      const mint = mintOf(asset);
      if (mint === null) return (await chain.rpc.getBalance(address as Address, { commitment }).send()).value;
      const ata = await associatedTokenAccount(address as Address, mint);
      const info = await chain.rpc
        .getTokenAccountBalance(ata, { commitment })
        .send()
        .catch((err: unknown) => {
          // An account that was never created holds nothing (Agave: "could not find account"; the local chain: "not a
          // Token account"); any other failure is the caller's to see. The server's words are in the error's context:
          // kit's production build (NODE_ENV=production) leaves them out of `message`.
          const { message, context } = err as { message?: string; context?: { __serverMessage?: unknown } };
          const said = `${String(context?.__serverMessage ?? '')} ${String(message)}`;
          if (/could not find account|not a Token account/i.test(said)) return null;
          throw err;
        });
      return info === null ? 0n : BigInt(info.value.amount);
    },
  };
}
