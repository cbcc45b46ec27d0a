/**
 * What identifies the local EVM chain, the same on every run. Every account and key here is anvil's public test
 * mnemonic ("test test … junk"): anyone can spend from them, which is the point on a local chain and the reason they
 * must never be used anywhere else.
 */
import { defineChain, type Address, type Chain, type Hex } from 'viem';

export const LOCAL_CHAIN_ID = 31337;
export const LOCAL_CAIP2 = `eip155:${LOCAL_CHAIN_ID}` as const;
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** Where Multicall3 lives on every chain that has it, so clients find it without configuration. */
export const CANONICAL_MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/**
 * anvil's default accounts (#0–#2 of the public test mnemonic). #0 deploys TUSD, so it is TUSD's minter and the
 * faucet; #1 receives the demo merchant's payouts (the server's development bootstrap); #2 is the local relayer.
 */
export const ANVIL_KEYS = {
  faucet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  settlement: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  relayer: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
} as const satisfies Record<string, Hex>;

/** Blocks are mined on each transaction, so polling faster than that only costs loopback round trips. */
export const LOCAL_POLLING_MS = 50;

export function localViemChain(rpcUrl: string): Chain {
  return defineChain({
    id: LOCAL_CHAIN_ID,
    name: 'Local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: CANONICAL_MULTICALL3 } },
  });
}
