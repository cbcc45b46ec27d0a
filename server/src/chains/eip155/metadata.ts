/**
 * The startup check of a chain's configuration against the chain itself. A wrong `decimals` would misprice every
 * payment by powers of ten, and a wrong address would take payments in some other token, so the server refuses to
 * start rather than serve them.
 */
import { erc20Abi, type Chain, type PublicClient, type Transport } from 'viem';
import type { EvmChainConfig } from '../chainsSetting.js';
import { shortError } from '../rpcErrors.js';
import { isEndpointFailure } from '../rpcPost.js';

export class ChainMetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainMetadataError';
  }
}

/**
 * Checks that the RPC endpoint serves the configured chain and that every token answers the configured symbol and
 * decimals, in one Multicall3 batch. Every disagreement is reported at once, each naming the chain and the asset.
 */
export async function checkChainMetadata(
  config: EvmChainConfig,
  client: PublicClient<Transport, Chain>,
): Promise<void> {
  const at = `Chain ${config.caip2} (${config.name})`;
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (err) {
    throw new ChainMetadataError(`${at}: the RPC endpoint does not answer: ${shortError(err)}`);
  }
  if (chainId !== config.chainId) {
    throw new ChainMetadataError(`${at}: the RPC endpoint serves chain id ${chainId}, not ${config.chainId}`);
  }
  const tokens = config.assets.flatMap((asset) => (asset.address ? [{ asset, address: asset.address }] : []));
  if (tokens.length === 0) return;

  let results: { status: 'success' | 'failure'; result?: unknown; error?: unknown }[];
  try {
    results = await client.multicall({
      allowFailure: true,
      contracts: tokens.flatMap(({ address }) => [
        { address, abi: erc20Abi, functionName: 'symbol' } as const,
        { address, abi: erc20Abi, functionName: 'decimals' } as const,
      ]),
    });
  } catch (err) {
    throw new ChainMetadataError(
      `${at}: cannot read token metadata through Multicall3 at ${config.multicall3}: ${shortError(err)}`,
    );
  }

  // viem's multicall turns a failed request into per-call failures (§27.9): an endpoint that failed is an outage to
  // retry, not a configuration to fix, and must not read as "no token at this address" (§27.16).
  const failed = results.find(
    (r): r is { status: 'failure'; error: unknown } => r.status === 'failure' && isEndpointFailure(r.error),
  );
  if (failed) throw new ChainMetadataError(`${at}: the RPC endpoint does not answer: ${shortError(failed.error)}`);

  const problems: string[] = [];
  tokens.forEach(({ asset }, i) => {
    const symbol = results[2 * i]!;
    const decimals = results[2 * i + 1]!;
    const label = `asset ${asset.caip19} (${asset.symbol})`;
    if (symbol.status !== 'success' || decimals.status !== 'success') {
      problems.push(`${label}: symbol() or decimals() failed; is there an ERC-20 at ${asset.address} on this chain?`);
      return;
    }
    if (symbol.result !== asset.symbol) {
      problems.push(`${label}: the chain says symbol "${String(symbol.result)}", the configuration "${asset.symbol}"`);
    }
    if (Number(decimals.result) !== asset.decimals) {
      problems.push(
        `${label}: the chain says decimals ${String(decimals.result)}, the configuration ${asset.decimals}`,
      );
    }
  });
  if (problems.length > 0) {
    throw new ChainMetadataError(`${at}: the configuration disagrees with the chain:\n  ${problems.join('\n  ')}`);
  }
}
