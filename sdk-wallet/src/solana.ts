import {
  getBase64Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  getTransactionEncoder,
  isTransactionModifyingSigner,
  isTransactionPartialSigner,
  partiallySignTransactionWithSigners,
  type Transaction,
  type TransactionModifyingSigner,
  type TransactionPartialSigner,
  type TransactionSigner,
} from '@solana/kit';
import { PayError } from './errors.js';
import type { WalletRpcAction } from './types.js';

/** An account of a wallet-standard wallet, as far as this SDK reads it. */
export interface StandardWalletAccount {
  readonly address: string;
}

/** A wallet-standard `solana:signTransaction` feature (version 1.0.0 of `@solana/wallet-standard-features`). */
export interface SolanaSignTransactionFeature {
  signTransaction(
    ...inputs: readonly {
      account: StandardWalletAccount;
      transaction: Uint8Array;
      chain?: `${string}:${string}`;
    }[]
  ): Promise<readonly { readonly signedTransaction: Uint8Array }[]>;
}

/**
 * A wallet-standard wallet (a `Wallet` of `@wallet-standard/base`) that has the `solana:signTransaction` feature and
 * an account that is a signer of the transaction.
 */
export interface SolanaStandardWallet {
  readonly accounts: readonly StandardWalletAccount[];
  readonly features: Readonly<Record<`${string}:${string}`, unknown>>;
}

/**
 * What signs `solana_signTransaction`: a `@solana/kit` `TransactionSigner` that signs without sending (a partial or
 * modifying signer, e.g. `generateKeyPairSigner()`), or a wallet-standard wallet. Nothing is ever broadcast: Paygate
 * broadcasts the signed transaction it receives in confirm.
 */
export type SolanaSigner = TransactionSigner | SolanaStandardWallet;

type SigningSigner = TransactionPartialSigner | TransactionModifyingSigner;

const FEATURE = 'solana:signTransaction';

/** Wallet-standard names the clusters; CAIP-2 names them by the first 32 characters of the genesis hash. */
const STANDARD_CHAINS: Record<string, `solana:${string}`> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana:mainnet',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'solana:devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'solana:testnet',
};

function isStandardWallet(signer: SolanaSigner): signer is SolanaStandardWallet {
  return typeof signer === 'object' && signer !== null && 'features' in signer && 'accounts' in signer;
}

function featureOf(wallet: SolanaStandardWallet): SolanaSignTransactionFeature | null {
  const feature = wallet.features[FEATURE] as Partial<SolanaSignTransactionFeature> | undefined;
  return typeof feature?.signTransaction === 'function' ? (feature as SolanaSignTransactionFeature) : null;
}

/** Why `signer` cannot sign Solana transactions here, or null when it can; checked before anything is signed. */
export function solanaSignerProblem(signer: SolanaSigner): string | null {
  if (isStandardWallet(signer)) {
    return featureOf(signer) ? null : `the wallet has no ${FEATURE} feature`;
  }
  if (isTransactionPartialSigner(signer) || isTransactionModifyingSigner(signer)) return null;
  return 'it is a sending signer only, and the gateway broadcasts Solana transactions itself (give a signer that signs without sending)';
}

/**
 * Performs `solana_signTransaction`: decodes the base64 wire transaction, has the signer sign it (never send it),
 * checks that the message is unchanged and carries the signer's signature, and answers the complete signed
 * transaction in base64, as confirm expects.
 */
export async function signSolanaTransaction(
  call: WalletRpcAction,
  signer: SolanaSigner,
  actionIndex: number,
  signal?: AbortSignal,
): Promise<string> {
  const transaction = decodeParams(call, actionIndex);
  const required = Object.keys(transaction.signatures);
  let signed: Transaction;
  let address: string;
  if (isStandardWallet(signer)) {
    const account = signer.accounts.find((a) => required.includes(a.address));
    if (!account) {
      throw new PayError(
        'signer_mismatch',
        `Action ${actionIndex}: none of the wallet's accounts is a signer of the transaction (signers: ${required.join(', ')}).`,
        { actionIndex },
      );
    }
    address = account.address;
    const reference = call.chain_id.slice('solana:'.length);
    const chain = STANDARD_CHAINS[reference];
    const [output] = await featureOf(signer)!.signTransaction({
      account,
      transaction: getTransactionEncoder().encode(transaction) as Uint8Array,
      ...(chain ? { chain } : {}),
    });
    signed = decodeSigned(output?.signedTransaction, actionIndex);
  } else {
    address = signer.address;
    if (!required.includes(address)) {
      throw new PayError(
        'signer_mismatch',
        `Action ${actionIndex}: ${address} is not a signer of the transaction (signers: ${required.join(', ')}).`,
        { actionIndex },
      );
    }
    signed = await partiallySignTransactionWithSigners([signer as SigningSigner], transaction, { abortSignal: signal });
  }
  if (!bytesEqual(signed.messageBytes, transaction.messageBytes)) {
    throw new PayError(
      'invalid_signer_result',
      `Action ${actionIndex}: the signer changed the transaction; it must be signed exactly as given.`,
      { actionIndex },
    );
  }
  if (!signed.signatures[address as keyof typeof signed.signatures]) {
    throw new PayError(
      'invalid_signer_result',
      `Action ${actionIndex}: the transaction came back without a signature of ${address}.`,
      {
        actionIndex,
      },
    );
  }
  return getBase64Decoder().decode(getTransactionEncoder().encode(signed));
}

function decodeParams(call: WalletRpcAction, actionIndex: number): Transaction {
  const [first] = call.params;
  const encoded = (first as { transaction?: unknown } | null)?.transaction;
  if (call.params.length !== 1 || typeof encoded !== 'string') {
    throw new PayError(
      'invalid_action',
      `Action ${actionIndex}: solana_signTransaction takes [{ transaction: <base64> }].`,
      {
        actionIndex,
      },
    );
  }
  try {
    return getTransactionDecoder().decode(getBase64Encoder().encode(encoded));
  } catch (cause) {
    throw new PayError('invalid_action', `Action ${actionIndex}: the transaction is not a base64 Solana transaction.`, {
      actionIndex,
      cause,
    });
  }
}

function decodeSigned(bytes: unknown, actionIndex: number): Transaction {
  try {
    if (!(bytes instanceof Uint8Array)) throw new TypeError('not bytes');
    return getTransactionDecoder().decode(bytes);
  } catch (cause) {
    throw new PayError('invalid_signer_result', `Action ${actionIndex}: the wallet answered no signed transaction.`, {
      actionIndex,
      cause,
    });
  }
}

function bytesEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
