import type { ConfiguredChain } from '../configuredChain.js';
import type { SolanaChainConfig } from './config.js';

/**
 * A Solana chain as code outside chains/ sees it: no price feeds (a test chain prices SOL from the static table, a
 * live one only its pegged stablecoins), no chain a wallet adds, and Solana Pay's transaction requests.
 */
export function solanaConfiguredChain(config: SolanaChainConfig): ConfiguredChain {
  return {
    config: { ...config, priceFeeds: {}, sequencerUptimeFeed: null },
    addChain: null,
    transactionRequests: true,
  };
}
