/**
 * Accounts as Solana RPC answers them: the account object with its data in the requested encoding, SPL Token accounts
 * and mints in `jsonParsed` form (Agave's account-decoder layout), and token balances for transaction metadata.
 */
import { getBase58Decoder, getBase64Decoder, isSome, type Address, type EncodedAccount } from '@solana/kit';
import {
  AccountState,
  TOKEN_PROGRAM_ADDRESS,
  getMintDecoder,
  getMintSize,
  getTokenDecoder,
  getTokenSize,
} from '@solana-program/token';
import { RPC_ERROR, RpcError, invalidParams } from './errors.js';

/** Token-2022 shares the base account and mint layouts with SPL Token (extensions follow them). */
export const TOKEN_2022_PROGRAM_ADDRESS = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' as Address;
const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];

/** Every account stored today is rent-exempt, for which Agave answers `rentEpoch: u64::MAX`. */
const RENT_EXEMPT_EPOCH = 18446744073709551615n;
/** Agave refuses base58 beyond this, since base58 is quadratic to encode. */
const MAX_BASE58_BYTES = 128;

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed';

export interface DataSlice {
  offset: number;
  length: number;
}

/** An account as LiteSVM stores it, or its absence. */
export type MaybeAccount = (EncodedAccount & { exists: true }) | { exists: false; address: Address };

/** Reads one account; the ledger passes LiteSVM's `getAccount`. */
export type AccountReader = (address: Address) => MaybeAccount;

export function parseEncoding(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback;
  if (value === 'binary' || value === 'base58' || value === 'base64' || value === 'jsonParsed') return value;
  if (value === 'base64+zstd')
    throw invalidParams('base64+zstd encoding is not supported by the local endpoint (zstd is not in Node 20)');
  throw invalidParams(`unknown variant \`${String(value)}\`, expected one of base58, base64, jsonParsed`);
}

export function parseDataSlice(value: unknown): DataSlice | null {
  if (value === undefined || value === null) return null;
  const { offset, length } = value as { offset?: unknown; length?: unknown };
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || Number(offset) < 0 || Number(length) < 0) {
    throw invalidParams('dataSlice needs non-negative integer offset and length');
  }
  return { offset: Number(offset), length: Number(length) };
}

function binaryData(
  data: EncodedAccount['data'],
  encoding: 'binary' | 'base58' | 'base64',
  slice: DataSlice | null,
): unknown {
  const bytes = slice ? data.subarray(slice.offset, slice.offset + slice.length) : data;
  if (encoding === 'base64') return [getBase64Decoder().decode(bytes), 'base64'];
  if (bytes.length > MAX_BASE58_BYTES) {
    throw new RpcError(
      RPC_ERROR.invalidRequest,
      `Encoded binary (base 58) data should be less than ${MAX_BASE58_BYTES} bytes, please use Base64 encoding.`,
    );
  }
  const text = getBase58Decoder().decode(bytes);
  return encoding === 'base58' ? [text, 'base58'] : text;
}

/** Agave's `real_number_string_trimmed`: the amount in whole tokens, without trailing zeros. */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, -decimals);
  const fraction = digits.slice(-decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

export function tokenAmount(amount: bigint, decimals: number) {
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: Number(amount) / 10 ** decimals,
    uiAmountString: uiAmountString(amount, decimals),
  };
}

function isTokenProgram(owner: Address): boolean {
  return TOKEN_PROGRAMS.includes(owner);
}

/** A token account's base fields (SPL Token or Token-2022), or null when the account is not one. */
export function readTokenAccount(account: EncodedAccount) {
  if (!isTokenProgram(account.programAddress) || account.data.length < getTokenSize()) return null;
  // Token-2022 marks extended token accounts with account type 2 right after the base layout.
  if (account.data.length > getTokenSize() && account.data[getTokenSize()] !== 2) return null;
  const token = getTokenDecoder().decode(account.data.subarray(0, getTokenSize()));
  return token.state === AccountState.Uninitialized ? null : token;
}

/** A mint's base fields (SPL Token or Token-2022), or null when the account is not one. */
export function readMint(account: MaybeAccount) {
  if (!account.exists || !isTokenProgram(account.programAddress) || account.data.length < getMintSize()) return null;
  if (account.data.length > getMintSize() && account.data[getTokenSize()] !== 1) return null;
  const mint = getMintDecoder().decode(account.data.subarray(0, getMintSize()));
  return mint.isInitialized ? mint : null;
}

/** Agave's jsonParsed form of an SPL Token account or mint; null when there is no parser (RPC falls back to base64). */
function parsedTokenData(account: EncodedAccount, read: AccountReader): unknown {
  // Token-2022 accounts carry extensions that this endpoint does not parse, so they stay binary.
  if (account.programAddress !== TOKEN_PROGRAM_ADDRESS) return null;
  const space = account.data.length;
  const token = space === getTokenSize() ? readTokenAccount(account) : null;
  if (token) {
    const mint = readMint(read(token.mint));
    if (!mint) return null;
    const info: Record<string, unknown> = {
      isNative: isSome(token.isNative),
      mint: token.mint,
      owner: token.owner,
      state: token.state === AccountState.Frozen ? 'frozen' : 'initialized',
      tokenAmount: tokenAmount(token.amount, mint.decimals),
    };
    if (isSome(token.delegate)) {
      info.delegate = token.delegate.value;
      info.delegatedAmount = tokenAmount(token.delegatedAmount, mint.decimals);
    }
    if (isSome(token.isNative)) info.rentExemptReserve = tokenAmount(token.isNative.value, mint.decimals);
    if (isSome(token.closeAuthority)) info.closeAuthority = token.closeAuthority.value;
    return { program: 'spl-token', parsed: { info, type: 'account' }, space: BigInt(space) };
  }
  const mint = space === getMintSize() ? readMint({ ...account, exists: true }) : null;
  if (mint) {
    const info = {
      decimals: mint.decimals,
      freezeAuthority: isSome(mint.freezeAuthority) ? mint.freezeAuthority.value : null,
      isInitialized: true,
      mintAuthority: isSome(mint.mintAuthority) ? mint.mintAuthority.value : null,
      supply: mint.supply.toString(),
    };
    return { program: 'spl-token', parsed: { info, type: 'mint' }, space: BigInt(space) };
  }
  return null;
}

/** The RPC account object (`null` for a missing account), data in the requested encoding. */
export function encodeAccount(
  account: MaybeAccount,
  encoding: AccountEncoding,
  slice: DataSlice | null,
  read: AccountReader,
): Record<string, unknown> | null {
  if (!account.exists) return null;
  const data =
    encoding === 'jsonParsed'
      ? (parsedTokenData(account, read) ?? binaryData(account.data, 'base64', null))
      : binaryData(account.data, encoding, slice);
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space: BigInt(account.data.length),
  };
}

export interface RpcTokenBalance {
  accountIndex: number;
  mint: Address;
  owner: Address;
  programId: Address;
  uiTokenAmount: ReturnType<typeof tokenAmount>;
}

/** The token balances among a transaction's accounts, as `preTokenBalances`/`postTokenBalances` list them. */
export function tokenBalances(accounts: readonly MaybeAccount[], read: AccountReader): RpcTokenBalance[] {
  const out: RpcTokenBalance[] = [];
  accounts.forEach((account, accountIndex) => {
    if (!account.exists) return;
    const token = readTokenAccount(account);
    const mint = token && readMint(read(token.mint));
    if (!token || !mint) return;
    out.push({
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: account.programAddress,
      uiTokenAmount: tokenAmount(token.amount, mint.decimals),
    });
  });
  return out;
}
