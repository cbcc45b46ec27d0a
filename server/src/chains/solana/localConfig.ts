import type { SolanaChainConfig } from './config.js';
import type { LocalSolanaChain } from '@paygate/devchain';

/** The local Solana chain's entry in the chain configuration. */
export function localSolanaConfig(local: LocalSolanaChain): SolanaChainConfig {
  const networkName = 'Local Solana (LiteSVM)';
  const { tusd } = local.mints;
  return {
    caip2: local.caip2,
    namespace: 'solana',
    name: 'Local Solana',
    mode: 'test',
    rpcUrl: local.rpcUrl,
    commitment: local.commitment,
    explorerTxUrl: null,
    // The local chain hands its fee payer over as a signer (connectSolanaChain's third argument).
    feePayerKey: '',
    assets: [
      {
        caip19: `${local.caip2}/slip44:501`,
        mint: null,
        decimals: 9,
        symbol: 'SOL',
        name: 'Solana',
        iconUrl: null,
        networkIconUrl: null,
        networkName,
        peg: null,
      },
      {
        caip19: `${local.caip2}/token:${tusd.address}`,
        mint: tusd.address,
        decimals: tusd.decimals,
        symbol: tusd.symbol,
        name: tusd.name,
        iconUrl: null,
        networkIconUrl: null,
        networkName,
        peg: 'USD',
      },
    ],
  };
}
