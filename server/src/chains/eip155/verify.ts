/**
 * Confirm's checks on an EVM chain. Nothing is accepted that the chain does not show: an authorization must recover
 * to the option's account and pass a simulated `transferWithAuthorization`; a transaction must exist, come from the
 * account, and carry exactly the calldata the option issued (so no other transfer to the merchant can be claimed).
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  isHex,
  parseSignature,
  recoverTypedDataAddress,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
} from 'viem';
import { ApiError } from '../../errors.js';
import type { ClaimDraft, ConfirmContext, VerifiedOption } from '../adapter.js';
import type { EvmChain } from '../index.js';
import { eip3009Abi } from './abis.js';
import { addressOf, authorizationOf, directCall, transferWithAuthorizationTypes } from './actions.js';

/** A transaction may be mined a little before the option by the server's clock: clocks drift. */
const ISSUE_SKEW_S = 120;

const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

function refuse(message: string): never {
  throw new ApiError('params_validation', message);
}

/** One output per EVM action: the contract's object form must hold exactly one string. */
function single(results: string[][], method: string, pattern: RegExp, what: string): string {
  if (results.length !== 1) refuse(`results has ${results.length} items but the option has 1 action.`);
  const outputs = results[0]!;
  if (outputs.length !== 1) refuse(`results[0] must hold one output for ${method}, not ${outputs.length}.`);
  const output = outputs[0]!;
  if (!pattern.test(output)) refuse(`results[0] must be ${what} for ${method}.`);
  return output;
}

function revertReason(err: unknown): string {
  if (err instanceof BaseError) {
    const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName ?? reverted.shortMessage;
    return err.shortMessage;
  }
  return String(err);
}

export async function verifyAuthorization(
  chain: EvmChain,
  option: VerifiedOption,
  results: string[][],
): Promise<ClaimDraft> {
  const signature = single(
    results,
    'eth_signTypedData_v4',
    SIGNATURE,
    'a 65-byte signature (0x followed by 130 hex characters)',
  ) as Hex;
  const auth = await authorizationOf(chain, option);
  let signer: string;
  try {
    signer = await recoverTypedDataAddress({
      domain: auth.domain,
      types: transferWithAuthorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: auth.message,
      signature,
    });
  } catch {
    refuse('results[0] is not a valid signature.');
  }
  if (getAddress(signer) !== auth.message.from) {
    refuse(`results[0] is not a signature of the option's account ${auth.message.from}.`);
  }
  const publicClient = chain.clients.public;
  const token = auth.domain.verifyingContract;
  const [used, fromBlock] = await Promise.all([
    publicClient.readContract({
      address: token,
      abi: eip3009Abi,
      functionName: 'authorizationState',
      args: [auth.message.from, auth.message.nonce],
    }),
    publicClient.getBlockNumber({ cacheTime: 0 }),
  ]);
  if (!used) {
    // Everything the token will check (balance, validity window, signature) is checked now, by the token itself.
    const { v, r, s, yParity } = parseSignature(signature);
    try {
      await publicClient.simulateContract({
        account: chain.clients.relayer.account,
        address: token,
        abi: eip3009Abi,
        functionName: 'transferWithAuthorization',
        args: [
          auth.message.from,
          auth.message.to,
          auth.message.value,
          auth.message.validAfter,
          auth.message.validBefore,
          auth.message.nonce,
          Number(v ?? BigInt(yParity + 27)),
          r,
          s,
        ],
      });
    } catch (err) {
      refuse(`The authorization would not transfer the funds: ${revertReason(err)}.`);
    }
  }
  return {
    claimKey: `${chain.config.caip2}:auth:${token}:${auth.message.from}:${auth.message.nonce}`,
    kind: 'eip3009',
    txId: null,
    details: {
      token,
      from: auth.message.from,
      to: auth.message.to,
      value: auth.message.value.toString(),
      validBefore: auth.message.validBefore.toString(),
      nonce: auth.message.nonce,
      signature,
      // Where to start looking for the authorization's use, whoever submits it.
      fromBlock: fromBlock.toString(),
    },
    next: 'relay',
    minedAt: null,
    excess: 0n,
  };
}

export async function verifyTransaction(
  chain: EvmChain,
  option: VerifiedOption,
  results: string[][],
  _context: ConfirmContext,
): Promise<ClaimDraft> {
  const hash = single(
    results,
    'eth_sendTransaction',
    TX_HASH,
    'a transaction hash (0x followed by 64 hex characters)',
  ) as Hex;
  const publicClient = chain.clients.public;
  let tx;
  try {
    tx = await publicClient.getTransaction({ hash });
  } catch (err) {
    if (err instanceof TransactionNotFoundError) {
      refuse(`Transaction ${hash} is not known on ${chain.config.caip2}; send it, then confirm again.`);
    }
    throw err;
  }
  const expected = directCall(option);
  const account = addressOf(option.claims.account);
  if (tx.chainId !== undefined && tx.chainId !== chain.config.chainId)
    refuse(`Transaction ${hash} is for another chain.`);
  if (getAddress(tx.from) !== account) refuse(`Transaction ${hash} was not sent by the option's account ${account}.`);
  if (!tx.to || getAddress(tx.to) !== expected.to || tx.input.toLowerCase() !== expected.data.toLowerCase()) {
    refuse(
      `Transaction ${hash} is not the transfer this option issued (recipient, token, amount or reference differ).`,
    );
  }
  let minedAt: number | null = null;
  if (tx.blockNumber !== null) {
    const block = await publicClient.getBlock({ blockNumber: tx.blockNumber });
    minedAt = Number(block.timestamp);
    if (minedAt < Math.floor(option.claims.issuedAt / 1000) - ISSUE_SKEW_S) {
      refuse(`Transaction ${hash} was mined before this option was issued.`);
    }
    try {
      const receipt = await publicClient.getTransactionReceipt({ hash });
      if (receipt.status !== 'success') refuse(`Transaction ${hash} reverted.`);
    } catch (err) {
      if (!(err instanceof TransactionReceiptNotFoundError)) throw err;
    }
  }
  const fromBlock = tx.blockNumber ?? (await publicClient.getBlockNumber({ cacheTime: 0 }));
  return {
    claimKey: `${chain.config.caip2}:tx:${account}:${tx.nonce}`,
    kind: option.claims.kind,
    txId: hash,
    details: {
      from: account,
      nonce: tx.nonce,
      to: expected.to,
      data: expected.data,
      value: tx.value.toString(),
      amount: option.claims.amount,
      recipient: getAddress(option.claims.recipient),
      fromBlock: fromBlock.toString(),
    },
    next: 'watch',
    minedAt,
    excess: tx.value - expected.value,
  };
}

export function isTxHash(value: string): boolean {
  return isHex(value) && TX_HASH.test(value);
}
