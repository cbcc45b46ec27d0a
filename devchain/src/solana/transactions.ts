/**
 * Wire transactions as the RPC receives them: decoding (with Agave's size limit and error texts), the accounts a
 * transaction loads (static keys, then those of its address lookup tables) and the fee it pays.
 */
import {
  getAddressDecoder,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type Transaction,
} from '@solana/kit';
import type { MaybeAccount } from './accounts.js';
import { invalidParams } from './errors.js';

/** Agave's limit: a packet (1232 bytes), or 1644 characters of base64. */
const PACKET_DATA_SIZE = 1232;
const MAX_BASE64_SIZE = 1644;
const MAX_BASE58_SIZE = 1683;

export const LAMPORTS_PER_SIGNATURE = 5000n;
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
const MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT = 3_000n;
/** Programs that are still builtins (SIMD-0170 gives their instructions 3,000 CUs by default). */
const BUILTIN_PROGRAMS = new Set([
  COMPUTE_BUDGET_PROGRAM,
  '11111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
]);
/** Precompiles count the signatures they verify (first data byte) into the fee. */
const PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
/** An address lookup table's addresses follow its 56-byte metadata. */
const LOOKUP_TABLE_META_SIZE = 56;

export type Message = (CompiledTransactionMessage & CompiledTransactionMessageWithLifetime) & {
  version: 'legacy' | 0;
};

export interface DecodedTransaction {
  wire: Uint8Array;
  transaction: Transaction;
  message: Message;
  /** The first signature (the transaction id), base58; all zeros when unsigned. */
  signature: string;
  /** Whether every required signature is present (kit decodes an all-zero signature as missing). */
  fullySigned: boolean;
  recentBlockhash: string;
}

export type TransactionEncoding = 'base58' | 'base64';

/** Decodes a wire transaction the way sendTransaction and simulateTransaction read their first parameter. */
export function decodeWireTransaction(encoded: unknown, encoding: TransactionEncoding): DecodedTransaction {
  if (typeof encoded !== 'string') throw invalidParams('the transaction must be a string');
  const max = encoding === 'base64' ? MAX_BASE64_SIZE : MAX_BASE58_SIZE;
  if (encoded.length > max) {
    throw invalidParams(
      `${encoding} encoded solana_transaction::versioned::VersionedTransaction too large: ${encoded.length} bytes ` +
        `(max: encoded/raw ${max}/${PACKET_DATA_SIZE})`,
    );
  }
  let wire: Uint8Array;
  try {
    wire = new Uint8Array(encoding === 'base64' ? strictBase64(encoded) : getBase58Encoder().encode(encoded).slice());
  } catch {
    throw invalidParams(`invalid ${encoding} encoding`);
  }
  if (wire.length > PACKET_DATA_SIZE) {
    throw invalidParams(
      `decoded solana_transaction::versioned::VersionedTransaction too large: ${wire.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
    );
  }
  let transaction: Transaction;
  let message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
  try {
    transaction = getTransactionDecoder().decode(wire);
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch (err) {
    throw invalidParams(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(err as Error).message}`,
    );
  }
  if (message.version !== 'legacy' && message.version !== 0) {
    throw invalidParams(`transaction version ${String(message.version)} is not supported by the local endpoint`);
  }
  // The first signature (the fee payer's) identifies the transaction, even when it is missing (all zeros).
  const first = Object.values(transaction.signatures)[0] ?? null;
  const signature = getBase58Decoder().decode(first ?? new Uint8Array(64));
  return {
    wire,
    transaction,
    message: message as Message,
    signature,
    fullySigned: Object.values(transaction.signatures).every((s) => s !== null),
    recentBlockhash: message.lifetimeToken,
  };
}

function strictBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('not base64');
  return getBase64Encoder().encode(text) as Uint8Array;
}

export interface LoadedAddresses {
  writable: Address[];
  readonly: Address[];
}

/**
 * The accounts a transaction loads, in the order Solana indexes them: static keys, then the writable and read-only
 * addresses of its lookup tables. An unreadable table leaves its addresses out (execution then fails on it anyway).
 */
export function transactionAccounts(
  message: Message,
  read: (address: Address) => MaybeAccount,
): { accountKeys: Address[]; loadedAddresses: LoadedAddresses } {
  const loadedAddresses: LoadedAddresses = { writable: [], readonly: [] };
  const lookups = message.version === 0 ? (message.addressTableLookups ?? []) : [];
  for (const lookup of lookups) {
    const table = read(lookup.lookupTableAddress);
    if (!table.exists) continue;
    const at = (index: number) => {
      const start = LOOKUP_TABLE_META_SIZE + index * 32;
      return start + 32 <= table.data.length
        ? getAddressDecoder().decode(table.data.subarray(start, start + 32))
        : null;
    };
    for (const i of lookup.writableIndexes) loadedAddresses.writable.push(...[at(i)].filter((a) => a !== null));
    for (const i of lookup.readonlyIndexes) loadedAddresses.readonly.push(...[at(i)].filter((a) => a !== null));
  }
  return {
    accountKeys: [...message.staticAccounts, ...loadedAddresses.writable, ...loadedAddresses.readonly],
    loadedAddresses,
  };
}

function readU32(data: Uint8Array, at: number): bigint {
  return BigInt(new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(at, true));
}

function readU64(data: Uint8Array, at: number): bigint {
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);
}

/**
 * The fee the runtime charges for a message: 5,000 lamports per signature (transaction and precompile signatures),
 * plus the prioritization fee, ceil(compute unit price × compute unit limit / 10^6), where the limit is the one
 * requested or the default (SIMD-0170: 3,000 per builtin instruction, ComputeBudget's own included, 200,000 per
 * other instruction, at most 1.4M).
 * Tests compare it with what LiteSVM deducts.
 */
export function transactionFee(message: Message): bigint {
  let signatures = BigInt(message.header.numSignerAccounts);
  let requestedLimit: bigint | null = null;
  let price = 0n;
  let defaultLimit = 0n;
  for (const instruction of message.instructions) {
    const program = message.staticAccounts[instruction.programAddressIndex] ?? '';
    const data = (instruction.data ?? new Uint8Array()) as Uint8Array;
    if (program === COMPUTE_BUDGET_PROGRAM) {
      if (data[0] === 2 && data.length >= 5) requestedLimit = readU32(data, 1);
      if (data[0] === 3 && data.length >= 9) price = readU64(data, 1);
    }
    if (PRECOMPILES.has(program) && data.length > 0) signatures += BigInt(data[0]!);
    defaultLimit += BUILTIN_PROGRAMS.has(program)
      ? MAX_BUILTIN_ALLOCATION_COMPUTE_UNIT_LIMIT
      : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
  }
  const limit = requestedLimit ?? defaultLimit;
  const cappedLimit = limit < MAX_COMPUTE_UNIT_LIMIT ? limit : MAX_COMPUTE_UNIT_LIMIT;
  const priority = (price * cappedLimit + 999_999n) / 1_000_000n;
  return signatures * LAMPORTS_PER_SIGNATURE + priority;
}
