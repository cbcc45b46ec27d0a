/**
 * The Solana payment transaction of an option, built so that confirm can rebuild it byte for byte from the option
 * token and the blockhash the wallet signed (docs/decisions.md §18):
 *
 * - the merchant's associated token account, created idempotently and paid for by the fee payer;
 * - `TransferChecked` of the option's amount from the buyer's associated token account (SOL: a system transfer);
 * - a read-only reference account on the transfer, derived from the payment and the option's MAC (Solana Pay's
 *   convention: programs ignore extra accounts, and the reference binds the transaction to this payment).
 *
 * The service's fee payer is the transaction's fee payer, so the buyer needs no SOL.
 */
import { createHash } from 'node:crypto';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getAddressDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Blockhash,
  type Instruction,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import type { VerifiedOption } from '../adapter.js';

/** The base58 public key at the end of a `solana:<ref>:<key>` account. */
export function solanaAddressOf(caip10: string): Address {
  return caip10.slice(caip10.lastIndexOf(':') + 1) as Address;
}

/** The SPL mint of a `…/token:<mint>` asset; null for SOL. */
export function mintOf(caip19: string): Address | null {
  const match = /\/token:([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(caip19);
  return match ? (match[1] as Address) : null;
}

/** 32 bytes only the option's issuer can predict, as an address. */
export function referenceOf(option: VerifiedOption): Address {
  const digest = createHash('sha256')
    .update('paygate:solana-ref:')
    .update(option.claims.paymentId)
    .update(option.mac)
    .digest();
  return getAddressDecoder().decode(digest);
}

export async function associatedTokenAccount(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

function withReference(instruction: Instruction, reference: Address): Instruction {
  return {
    ...instruction,
    accounts: [...(instruction.accounts ?? []), { address: reference, role: AccountRole.READONLY }],
  };
}

export interface Lifetime {
  blockhash: Blockhash;
  lastValidBlockHeight: bigint;
}

/**
 * The unsigned payment transaction of the option at this blockhash. Version 0 for the checkout; `legacy` for Solana
 * Pay, whose wallets (web3.js v1's `Transaction.from`, as `@solana/pay` uses it) cannot read versioned messages.
 */
export async function paymentTransaction(
  option: VerifiedOption,
  feePayer: Address,
  lifetime: Lifetime,
  version: 0 | 'legacy' = 0,
): Promise<Transaction> {
  const { claims } = option;
  const buyer = solanaAddressOf(claims.account);
  const merchant = claims.recipient as Address;
  const amount = BigInt(claims.amount);
  const reference = referenceOf(option);
  const mint = mintOf(claims.asset);
  let instructions: Instruction[];
  if (mint === null) {
    instructions = [
      withReference(
        getTransferSolInstruction({ source: createNoopSigner(buyer), destination: merchant, amount }),
        reference,
      ),
    ];
  } else {
    const [source, destination] = await Promise.all([
      associatedTokenAccount(buyer, mint),
      associatedTokenAccount(merchant, mint),
    ]);
    instructions = [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: createNoopSigner(feePayer),
        ata: destination,
        owner: merchant,
        mint,
      }),
      withReference(
        getTransferCheckedInstruction({
          source,
          mint,
          destination,
          authority: createNoopSigner(buyer),
          amount,
          decimals: claims.decimals,
        }),
        reference,
      ),
    ];
  }
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return compileTransaction(message);
}
