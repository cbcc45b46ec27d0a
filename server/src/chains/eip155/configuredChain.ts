import type { ConfiguredChain } from '../configuredChain.js';
import type { EvmClients } from './client.js';
import type { EvmChainConfig } from './config.js';

/** An EVM chain as code outside chains/ sees it; a wallet may add it when it has a public RPC to offer. */
export function evmConfiguredChain(config: EvmChainConfig, clients: EvmClients): ConfiguredChain {
  const native = config.assets.find((a) => a.address === null);
  return {
    config,
    clients,
    addChain: config.publicRpcUrl
      ? {
          chainId: `0x${config.chainId.toString(16)}`,
          chainName: config.name,
          rpcUrls: [config.publicRpcUrl],
          nativeCurrency: { name: native?.name ?? 'Ether', symbol: native?.symbol ?? 'ETH', decimals: 18 },
          ...(config.explorerTxUrl ? { blockExplorerUrls: [new URL(config.explorerTxUrl).origin] } : {}),
        }
      : null,
    transactionRequests: false,
  };
}
