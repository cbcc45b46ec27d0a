/**
 * A configured chain as the code outside chains/ sees it, whatever its namespace: what the checkout page, pricing and
 * the amounts' display need. Each namespace builds it from its own configuration (`chains/<namespace>/config.ts`),
 * so a third namespace adds its builder in chains/ and nothing outside.
 */
import type { Chain, PublicClient, Transport } from 'viem';
import type { ChainMode } from './chainMode.js';
import type { PriceFeedConfig } from './eip155/config.js';

/** What an asset is, for display and pricing; the namespace's own fields (a token address, a mint) stay inside. */
export interface ConfiguredAsset {
  caip19: string;
  decimals: number;
  symbol: string;
  name: string;
  iconUrl: string | null;
  networkIconUrl: string | null;
  networkName: string;
  peg: string | null;
}

/** EIP-3085 parameters for `wallet_addEthereumChain`. */
export interface AddChainParameters {
  chainId: string;
  chainName: string;
  rpcUrls: string[];
  nativeCurrency: { name: string; symbol: string; decimals: number };
  blockExplorerUrls?: string[];
}

export interface ConfiguredChain {
  config: {
    caip2: string;
    name: string;
    mode: ChainMode;
    assets: ConfiguredAsset[];
    /** An explorer's transaction page, `{txId}` standing for the transaction id; null: no link. */
    explorerTxUrl: string | null;
    /** Price feeds by pair (`BASE/QUOTE`); empty where the chain has none (chains/chainsSetting.ts). */
    priceFeeds: Record<string, PriceFeedConfig>;
    sequencerUptimeFeed: PriceFeedConfig['address'] | null;
  };
  /** The client that reads the chain's price feeds; absent where the chain has none to read. */
  clients?: { public: PublicClient<Transport, Chain> };
  /** What a wallet is given to add the chain itself; null when the chain has nothing to offer it. */
  addChain: AddChainParameters | null;
  /** Whether the chain serves transaction requests (`ChainAdapter.transactionRequests`): a wallet builds nothing. */
  transactionRequests: boolean;
}
