/**
 * The local EVM chain's side of the dev faucet (`POST /v1/dev/faucet`): mints TUSD or sends ether from anvil account
 * #0 through the dev package, and answers once the transaction is mined.
 */
import { getAddress, isAddress, type Address } from 'viem';
import { ApiError } from '../../errors.js';
import type { FaucetRequest } from '../faucetRequest.js';
import type { LocalEvmChain } from '../local.js';
import type { AssetConfig } from './config.js';

function parseAccount(chain: LocalEvmChain, account: string, localChains: string): Address {
  const [namespace, reference, address] = account.split(':') as [string, string, string];
  const caip2 = `${namespace}:${reference}`;
  if (caip2 !== chain.config.caip2) {
    throw new ApiError(
      'params_validation',
      `Chain ${caip2} is not a local development chain. Local chains are ${localChains}.`,
    );
  }
  if (!isAddress(address, { strict: true })) {
    throw new ApiError(
      'params_validation',
      `Account ${account} does not hold an eip155 address (0x + 40 hex; a mixed-case one must be a valid EIP-55 checksum).`,
    );
  }
  return getAddress(address);
}

/** The asset by CAIP-19 (the address part compared without regard to case), or the native coin for `native`. */
function findAsset(chain: LocalEvmChain, asset: string): AssetConfig {
  const { assets, caip2 } = chain.config;
  const found =
    asset === 'native'
      ? assets.find((a) => a.address === null)
      : assets.find((a) => a.caip19.toLowerCase() === asset.toLowerCase());
  if (!found) throw new ApiError('params_validation', `Asset ${asset} is not an asset of chain ${caip2}.`);
  return found;
}

/** The dev package refuses what its faucet cannot give; a refusal is the caller's to fix (by its code, not its class). */
async function refusalsAsApiErrors<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'faucet_refused')
      throw new ApiError('params_validation', (err as Error).message);
    throw err;
  }
}

/** Sends the asset and resolves with the transaction that credited it, once mined. */
export async function fundEvmAccount(
  chain: LocalEvmChain,
  request: FaucetRequest,
  localChains: string,
): Promise<{ txId: string }> {
  const address = parseAccount(chain, request.account, localChains);
  const asset = findAsset(chain, request.asset);
  const amount = BigInt(request.amount);
  const txId = await refusalsAsApiErrors(
    asset.address === null ? chain.fund.sendEther(address, amount) : chain.fund.mintTestUsd(address, amount),
  );
  return { txId };
}
