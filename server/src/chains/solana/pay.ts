/**
 * Solana Pay transaction requests on a Solana chain (docs/decisions.md §19): the transaction handed to a wallet that
 * signs and sends it itself, and the search for it on chain by its reference. The wallet, not the service,
 * broadcasts, so the transaction is built already signed by the fee payer, and it is found afterwards with
 * `getSignaturesForAddress(reference)` and checked by the same rebuild-and-compare as confirm
 * (`checkPaymentTransaction`).
 */
import {
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getTransactionDecoder,
  isAddress,
  partiallySignTransaction,
  type Signature,
  type Transaction,
} from '@solana/kit';
import { ApiError } from '../../errors.js';
import type { TransactionRequests, TransactionSearch, VerifiedOption } from '../adapter.js';
import type { SolanaChain } from './client.js';
import { checkPaymentTransaction } from './adapter.js';
import { mintOf, paymentTransaction, referenceOf } from './transfer.js';

/** The most signatures one search reads; a reference is the payment's own, so more means someone spams it. */
const SEARCH_LIMIT = 100;

/** The option's payment transaction, legacy, at a fresh blockhash, signed by the service's fee payer. */
async function buildSolanaPayTransaction(chain: SolanaChain, option: VerifiedOption) {
  const { value } = await chain.rpc.getLatestBlockhash({ commitment: chain.config.commitment }).send();
  const unsigned = await paymentTransaction(option, chain.feePayer.address, value, 'legacy');
  const signed = await partiallySignTransaction([chain.feePayer.keyPair], unsigned);
  return {
    transaction: getBase64EncodedWireTransaction(signed),
    reference: referenceOf(option),
    lastValidBlockHeight: value.lastValidBlockHeight,
  };
}

function decodeLanded(wire: string): Transaction | null {
  try {
    return getTransactionDecoder().decode(Buffer.from(wire, 'base64'));
  } catch {
    return null;
  }
}

/** Looks on chain for the transaction that pays the option, by the option's reference. */
async function searchSolanaPayTransaction(
  chain: SolanaChain,
  option: VerifiedOption,
  lastValidBlockHeight: bigint,
): Promise<TransactionSearch> {
  const { commitment } = chain.config;
  // Read first: if the blockhash had already expired, the signatures read next include every one that can exist.
  const height = await chain.rpc.getBlockHeight({ commitment }).send();
  const final = height > lastValidBlockHeight;
  const found = await chain.rpc
    .getSignaturesForAddress(referenceOf(option), { commitment, limit: SEARCH_LIMIT })
    .send();
  const refused: TransactionSearch['refused'] = [];
  // Oldest first: of two that pay (which the rebuild makes impossible), the first to land is the payment.
  for (const entry of [...found].reverse()) {
    const signature = entry.signature;
    if (entry.err !== null) {
      refused.push({ txId: signature, reason: 'the transaction failed on chain' });
      continue;
    }
    const landed = await chain.rpc
      .getTransaction(signature, { commitment, encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send();
    const transaction = landed ? decodeLanded(landed.transaction[0]) : null;
    if (!landed || !transaction) {
      refused.push({ txId: signature, reason: 'the transaction cannot be read' });
      continue;
    }
    try {
      const { blockhash } = await checkPaymentTransaction(option, chain, transaction, {
        version: 'legacy',
        feePayer: 'signed',
      });
      const txId: Signature = getSignatureFromTransaction(transaction);
      return {
        paid: {
          claimKey: `${chain.config.caip2}:tx:${txId}`,
          kind: 'solana',
          txId,
          details: { signature: txId, blockhash, mint: mintOf(option.claims.asset), via: 'solana_pay' },
          next: 'watch',
          minedAt: landed.blockTime === null ? null : Number(landed.blockTime),
          excess: 0n,
        },
        refused,
        final,
      };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      refused.push({ txId: signature, reason: err.message });
    }
  }
  return { paid: null, refused, final };
}

/** Solana Pay's transaction requests on the configured Solana chains (the `solana` adapter's capability). */
export function solanaTransactionRequests(chains: SolanaChain[]): TransactionRequests {
  const chainOf = (caip2: string): SolanaChain => {
    const chain = chains.find((c) => c.config.caip2 === caip2);
    if (!chain) throw new ApiError('params_validation', `This server no longer serves ${caip2}.`);
    return chain;
  };
  return {
    isAddress: (address) => isAddress(address),
    build: (option) => buildSolanaPayTransaction(chainOf(option.claims.chain), option),
    search: (option, lastValidBlockHeight) =>
      searchSolanaPayTransaction(chainOf(option.claims.chain), option, lastValidBlockHeight),
  };
}
