/**
 * The SPL token transfers a landed transaction made, read from `getTransaction`'s `json` answer (the encoding every
 * RPC node serves; `jsonParsed` is not one the local chain implements). Top-level and inner (CPI) instructions count
 * alike: a wallet, an exchange or a program may move tokens either way.
 */
import { getBase58Encoder, type Address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

/** The SPL Token instruction tags (the first byte of the data) that move tokens between accounts. */
const TRANSFER = 3;
const TRANSFER_CHECKED = 12;
/** Inner instructions' positions start here (see `TokenTransfer.position`). */
const INNER = 1000;

interface JsonInstruction {
  programIdIndex: number;
  accounts: readonly number[];
  data: string;
}

/** What this module reads of `getTransaction(signature, { encoding: 'json' })`. */
export interface JsonLandedTransaction {
  transaction: { message: { accountKeys: readonly string[]; instructions: readonly JsonInstruction[] } };
  meta: {
    err: unknown;
    innerInstructions?: readonly { index: number; instructions: readonly JsonInstruction[] }[] | null;
    loadedAddresses?: { writable: readonly string[]; readonly: readonly string[] } | null;
    preTokenBalances?: readonly { accountIndex: number; owner?: string }[] | null;
  } | null;
}

export interface TokenTransfer {
  /**
   * Unique within the transaction (what `deposit_transfers.position` needs): a top-level instruction's index `i`;
   * the `j`-th inner instruction of top-level instruction `i` is `1000 × (i + 1) + j`. A transaction holds fewer
   * than 1000 instructions (1232 bytes) and fewer than 1000 inner ones (the runtime's trace limit is 64).
   */
  position: number;
  source: Address;
  destination: Address;
  /** Named by `TransferChecked` only; a plain `Transfer` moves the mint of its accounts. */
  mint: Address | null;
  amount: bigint;
  /** The source token account's owner before the transaction (the wallet that paid), when the node reports it. */
  sourceOwner: string | null;
}

/** Every SPL token transfer of a transaction that succeeded; none of a failed one (it moved nothing). */
export function tokenTransfersOf(landed: JsonLandedTransaction): TokenTransfer[] {
  const { meta } = landed;
  if (!meta || meta.err !== null) return [];
  const { message } = landed.transaction;
  // Loaded addresses follow the static keys, writable before read-only: the order instruction indexes count in.
  const keys = [
    ...message.accountKeys,
    ...(meta.loadedAddresses?.writable ?? []),
    ...(meta.loadedAddresses?.readonly ?? []),
  ];
  const inner = new Map((meta.innerInstructions ?? []).map((group) => [group.index, group.instructions]));
  const trace = message.instructions.flatMap((instruction, i) => [
    { instruction, position: i },
    ...(inner.get(i) ?? []).map((nested, j) => ({ instruction: nested, position: INNER * (i + 1) + j })),
  ]);
  const ownerOf = (index: number) => meta.preTokenBalances?.find((b) => b.accountIndex === index)?.owner ?? null;
  const transfers: TokenTransfer[] = [];
  for (const { instruction, position } of trace) {
    if (keys[instruction.programIdIndex] !== TOKEN_PROGRAM_ADDRESS) continue;
    const data = getBase58Encoder().encode(instruction.data);
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const { accounts } = instruction;
    let source: number | undefined, destination: number | undefined, mint: number | undefined;
    if (view[0] === TRANSFER && view.length >= 9) [source, destination] = accounts;
    else if (view[0] === TRANSFER_CHECKED && view.length >= 10) [source, mint, destination] = accounts;
    else continue;
    if (source === undefined || destination === undefined || keys[source] === undefined) continue;
    if (keys[destination] === undefined) continue;
    transfers.push({
      position,
      source: keys[source] as Address,
      destination: keys[destination] as Address,
      mint: mint === undefined ? null : ((keys[mint] ?? null) as Address | null),
      amount: view.readBigUInt64LE(1),
      sourceOwner: ownerOf(source),
    });
  }
  return transfers;
}
