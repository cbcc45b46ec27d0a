/**
 * The faucet of the local chains (`POST /v1/dev/faucet`): mints TUSD or sends ether from anvil account #0, or on
 * the local Solana chain mints TUSD (creating the associated token account) or sends SOL, and answers once the
 * transaction is confirmed, so a test wallet can pay with the funds at once.
 */
import { isAddress as isSolanaAddress } from '@solana/kit';
import { getAddress, isAddress, type Address } from 'viem';
import { ApiError } from '../errors.js';
import type { AssetConfig } from './config.js';
import type { LocalChains, LocalEvmChain } from './local.js';

export interface FaucetRequest {
  /** CAIP-10. */
  account: string;
  /** CAIP-19 of an asset of the account's chain, or `native`. */
  asset: string;
  /** Minor units, a positive decimal integer string (the contract's pattern). */
  amount: string;
}

function localChainIds(local: LocalChains): string {
  return `${local.evm.config.caip2} and ${local.solana.caip2}`;
}

function parseAccount(local: LocalChains, account: string): { chain: LocalEvmChain; address: Address } {
  const [namespace, reference, address] = account.split(':') as [string, string, string];
  const caip2 = `${namespace}:${reference}`;
  if (caip2 !== local.evm.config.caip2) {
    throw new ApiError(
      'params_validation',
      `Chain ${caip2} is not a local development chain. Local chains are ${localChainIds(local)}.`,
    );
  }
  if (!isAddress(address, { strict: true })) {
    throw new ApiError(
      'params_validation',
      `Account ${account} does not hold an eip155 address (0x + 40 hex; a mixed-case one must be a valid EIP-55 checksum).`,
    );
  }
  return { chain: local.evm, address: getAddress(address) };
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

/** SOL or TUSD on the local Solana chain. */
async function fundSolanaAccount(local: LocalChains, request: FaucetRequest): Promise<{ txId: string }> {
  const solana = local.solana;
  const owner = request.account.slice(request.account.lastIndexOf(':') + 1);
  if (!isSolanaAddress(owner)) {
    throw new ApiError('params_validation', `Account ${request.account} does not hold a base58 Solana public key.`);
  }
  const amount = BigInt(request.amount);
  const tusd = `${solana.caip2}/token:${solana.mints.tusd.address}`;
  if (request.asset === 'native' || request.asset === `${solana.caip2}/slip44:501`) {
    return { txId: await solana.faucet.airdropSol(owner, amount) };
  }
  if (request.asset === tusd) return { txId: await solana.faucet.mintTokens(owner, solana.mints.tusd.address, amount) };
  throw new ApiError('params_validation', `Asset ${request.asset} is not an asset of chain ${solana.caip2}.`);
}

/** Sends the asset and resolves with the transaction that credited it, once mined. */
export async function fundAccount(local: LocalChains, request: FaucetRequest): Promise<{ txId: string }> {
  if (request.account.startsWith(`${local.solana.caip2}:`)) return fundSolanaAccount(local, request);
  const { chain, address } = parseAccount(local, request.account);
  const asset = findAsset(chain, request.asset);
  const amount = BigInt(request.amount);
  const txId = await refusalsAsApiErrors(
    asset.address === null ? chain.fund.sendEther(address, amount) : chain.fund.mintTestUsd(address, amount),
  );
  return { txId };
}
