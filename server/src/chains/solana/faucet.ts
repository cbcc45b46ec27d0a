/**
 * The local Solana chain's side of the dev faucet (`POST /v1/dev/faucet`): mints TUSD (creating the associated
 * token account) or sends SOL, and answers once the transaction is confirmed.
 */
import { isAddress as isSolanaAddress } from '@solana/kit';
import type { LocalSolanaChain } from '@paygate/devchain';
import { ApiError } from '../../errors.js';
import type { FaucetRequest } from '../faucetRequest.js';

/** SOL or TUSD on the local Solana chain. */
export async function fundSolanaAccount(solana: LocalSolanaChain, request: FaucetRequest): Promise<{ txId: string }> {
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
