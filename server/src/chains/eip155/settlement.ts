/**
 * The EVM side of collected settlement (chains/adapter.ts `SettlementPort`): the keys derived from the deposit seed
 * and what the chain holds at them.
 */
import { getAddress, type Address } from 'viem';
import type { Database } from '../../db/connect.js';
import type { KeyRole, SettlementPort } from '../adapter.js';
import type { Chains, EvmChain } from '../index.js';
import { erc20Abi } from './abis.js';
import { evmSettlementKeys, type EvmSettlementKeys } from './depositKeys.js';
import { evmDepositScan } from './depositScan.js';
import { evmDepositInstructions } from './depositUri.js';
import { evmMoves } from './moves.js';

export interface EvmSettlement extends SettlementPort {
  keys: EvmSettlementKeys;
}

export function evmChainOf(chains: Chains, caip2: string): EvmChain {
  const chain = chains.evm.find((c) => c.config.caip2 === caip2);
  if (!chain) throw new Error(`${caip2} is not a configured EVM chain`);
  return chain;
}

export function createEvmSettlement(chains: Chains, seed: Uint8Array, db: Database): EvmSettlement {
  const keys = evmSettlementKeys(seed);
  return {
    keys,
    deposits: evmDepositInstructions(chains),
    mover: evmMoves(chains, db, keys),
    keyAddress: async (_chain: string, role: KeyRole) => keys.address(role),
    scanner: evmDepositScan(chains),
    async balance(caip2, asset, address) {
      const chain = evmChainOf(chains, caip2);
      const config = chain.config.assets.find((a) => a.caip19 === asset);
      if (!config) throw new Error(`${asset} is not an asset of ${caip2}`);
      const owner = getAddress(address) as Address;
      if (config.address === null) return chain.clients.public.getBalance({ address: owner });
      return chain.clients.public.readContract({
        address: config.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner],
      });
    },
  };
}
