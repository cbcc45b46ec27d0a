/**
 * The faucet of the local chains (`POST /v1/dev/faucet`): mints TUSD or sends ether from anvil account #0, or on
 * the local Solana chain mints TUSD (creating the associated token account) or sends SOL, and answers once the
 * transaction is confirmed, so a test wallet can pay with the funds at once.
 */
import { fundEvmAccount } from './eip155/faucet.js';
import type { FaucetRequest } from './faucetRequest.js';
import type { LocalChains } from './local.js';
import { fundSolanaAccount } from './solana/faucet.js';

export type { FaucetRequest } from './faucetRequest.js';

/** Sends the asset and resolves with the transaction that credited it, once mined or confirmed. */
export async function fundAccount(local: LocalChains, request: FaucetRequest): Promise<{ txId: string }> {
  if (request.account.startsWith(`${local.solana.caip2}:`)) return fundSolanaAccount(local.solana, request);
  return fundEvmAccount(local.evm, request, `${local.evm.config.caip2} and ${local.solana.caip2}`);
}
