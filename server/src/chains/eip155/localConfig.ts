/**
 * The local EVM chain's entry in the chain configuration (PAYGATE_CHAINS=local), from what the dev package's anvil
 * reports about itself.
 */
import type { Address, Hex } from 'viem';
import { KNOWN_BLOCK_TIME_S, type EvmChainConfig } from './config.js';

/** The local EVM chain as the anvil of the dev package describes it. */
export interface AnvilChainInfo {
  rpcUrl: string;
  chainId: number;
  multicall3: Address;
  keys: { relayer: Hex };
}

/** The local chain's entry in the chain configuration, as the gateway and the dev routes see it. */
export function localChainConfig(anvil: AnvilChainInfo, testUsd: Address | null): EvmChainConfig {
  const caip2 = `eip155:${anvil.chainId}` as const;
  const networkName = 'Local chain (anvil)';
  const native = {
    caip19: `${caip2}/slip44:60`,
    address: null,
    decimals: 18,
    symbol: 'ETH',
    name: 'Ether',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: false,
    peg: null,
  };
  const tusd = testUsd && {
    caip19: `${caip2}/erc20:${testUsd}`,
    address: testUsd,
    decimals: 6,
    symbol: 'TUSD',
    name: 'Paygate Test USD',
    iconUrl: null,
    networkIconUrl: null,
    networkName,
    eip3009: true,
    peg: 'USD',
  };
  return {
    caip2,
    namespace: 'eip155',
    chainId: anvil.chainId,
    name: 'Local',
    mode: 'test',
    rpcUrl: anvil.rpcUrl,
    explorerTxUrl: null,
    // Wallets in the browser tests (and a developer's own) can add the local chain from the checkout.
    publicRpcUrl: anvil.rpcUrl,
    // anvil mines one block per transaction and never reorganises.
    confirmations: 1,
    blockTimeS: KNOWN_BLOCK_TIME_S[31337]!,
    relayerKey: anvil.keys.relayer,
    multicall3: anvil.multicall3,
    assets: tusd ? [native, tusd] : [native],
    // Test mode without feeds: priced from the static table (server/src/quotes/staticRates.ts).
    priceFeeds: {},
    sequencerUptimeFeed: null,
  };
}
