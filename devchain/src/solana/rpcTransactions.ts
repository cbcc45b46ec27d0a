/**
 * The transaction methods: sending, simulating, fees and the queries about landed transactions.
 */
import {
  getBase58Decoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  type Address,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';
import { encodeAccount, parseEncoding, type MaybeAccount } from './accounts.js';
import { RPC_ERROR, RpcError, invalidParams } from './errors.js';
import type { LandedTransaction } from './ledger.js';
import { address, boolean, commitment, config, contextSlot, string, withContext } from './params.js';
import type { RpcMethod } from './rpcMethods.js';
import { decodeWireTransaction, transactionFee, type Message, type TransactionEncoding } from './transactions.js';

const MAX_SIGNATURE_STATUSES = 256;
/** getSignaturesForAddress answers at most this many, and by default this many (Agave's limit). */
const MAX_SIGNATURES_FOR_ADDRESS = 1000;
const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

/** Agave's `memo` of a signature: each memo instruction as `[<byte length>] <text>`, joined by `; `; null when none. */
function memoOf(landed: LandedTransaction): string | null {
  const { message } = landed.decoded;
  const memos = message.instructions
    .filter((i) => MEMO_PROGRAMS.has(message.staticAccounts[i.programAddressIndex] ?? ''))
    .map((i) => {
      const data = i.data ?? new Uint8Array();
      return `[${data.length}] ${Buffer.from(data).toString('utf8')}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
}

function transactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null || value === 'base58') return 'base58';
  if (value === 'base64') return 'base64';
  throw invalidParams(`unsupported encoding: ${String(value)}. Supported encodings: base58, base64`);
}

function status(err: unknown) {
  return err === null ? { Ok: null } : { Err: err };
}

/** The `transaction` member of getTransaction in `json` encoding. */
function jsonTransaction(landed: LandedTransaction) {
  const { message, transaction } = landed.decoded;
  const b58 = getBase58Decoder();
  return {
    message: {
      accountKeys: message.staticAccounts,
      header: {
        numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
        numRequiredSignatures: message.header.numSignerAccounts,
      },
      instructions: message.instructions.map((i) => ({
        accounts: i.accountIndices ?? [],
        data: b58.decode(i.data ?? new Uint8Array()),
        programIdIndex: i.programAddressIndex,
        stackHeight: null,
      })),
      recentBlockhash: message.lifetimeToken,
      ...(message.version === 0
        ? {
            addressTableLookups: (message.addressTableLookups ?? []).map((l) => ({
              accountKey: l.lookupTableAddress,
              readonlyIndexes: l.readonlyIndexes,
              writableIndexes: l.writableIndexes,
            })),
          }
        : {}),
    },
    signatures: Object.values(transaction.signatures).map((s) => b58.decode(s ?? new Uint8Array(64))),
  };
}

function transactionMeta(landed: LandedTransaction, withLoadedAddresses: boolean) {
  const { outcome } = landed;
  return {
    computeUnitsConsumed: outcome.unitsConsumed,
    err: outcome.err,
    fee: landed.fee,
    innerInstructions: outcome.innerInstructions,
    ...(withLoadedAddresses ? { loadedAddresses: landed.loadedAddresses } : {}),
    logMessages: outcome.logs,
    postBalances: landed.postBalances,
    postTokenBalances: landed.postTokenBalances,
    preBalances: landed.preBalances,
    preTokenBalances: landed.preTokenBalances,
    ...(outcome.returnData ? { returnData: outcome.returnData } : {}),
    rewards: [],
    status: status(outcome.err),
  };
}

/** simulateTransaction with replaceRecentBlockhash: the same message under the latest blockhash. */
function withBlockhash(transaction: Transaction, message: Message, blockhash: string): Transaction {
  const messageBytes = getCompiledTransactionMessageEncoder().encode({ ...message, lifetimeToken: blockhash });
  return { ...transaction, messageBytes: messageBytes as TransactionMessageBytes };
}

export const transactionMethods: Record<string, RpcMethod> = {
  sendTransaction: (params, { ledger }) => {
    const cfg = config(params, 1);
    const decoded = decodeWireTransaction(params[0], transactionEncoding(cfg.encoding));
    contextSlot(ledger, { commitment: cfg.preflightCommitment, minContextSlot: cfg.minContextSlot });
    return ledger.send(decoded, { skipPreflight: boolean(cfg.skipPreflight, 'skipPreflight', false) });
  },

  simulateTransaction: (params, { ledger, apiVersion }) => {
    const cfg = config(params, 1);
    const decoded = decodeWireTransaction(params[0], transactionEncoding(cfg.encoding));
    const sigVerify = boolean(cfg.sigVerify, 'sigVerify', false);
    const replace = boolean(cfg.replaceRecentBlockhash, 'replaceRecentBlockhash', false);
    if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
    const slot = contextSlot(ledger, cfg);
    const replacement = replace ? ledger.latestBlockhash() : null;
    const transaction = replacement
      ? withBlockhash(decoded.transaction, decoded.message, replacement.blockhash)
      : decoded.transaction;
    const { outcome, postAccounts } = ledger.simulate(transaction, sigVerify);
    let accounts: unknown = null;
    const wanted = cfg.accounts as { addresses?: unknown; encoding?: unknown } | undefined;
    if (wanted && postAccounts) {
      if (!Array.isArray(wanted.addresses)) throw invalidParams('accounts.addresses must be an array');
      const encoding = parseEncoding(wanted.encoding, 'base64');
      if (encoding === 'binary' || encoding === 'base58') throw invalidParams('accounts.encoding must be base64');
      // The state the transaction would leave: its accounts as simulated, every other one as it is.
      const after = (target: Address): MaybeAccount => {
        const changed = postAccounts.find((p) => p.address === target);
        return changed ? { ...changed, exists: true } : ledger.getAccount(target);
      };
      accounts = wanted.addresses.map((a) => encodeAccount(after(address(a)), encoding, null, after));
    }
    return withContext(apiVersion, slot, {
      accounts,
      err: outcome.err,
      fee: transactionFee(decoded.message),
      innerInstructions: cfg.innerInstructions === true ? outcome.innerInstructions : null,
      loadedAddresses: null,
      logs: outcome.logs,
      postBalances: null,
      postTokenBalances: null,
      preBalances: null,
      preTokenBalances: null,
      replacementBlockhash: replacement,
      returnData: outcome.returnData,
      unitsConsumed: outcome.unitsConsumed,
    });
  },

  getFeeForMessage: (params, { ledger, apiVersion }) => {
    const encoded = string(params[0], 'message');
    const slot = contextSlot(ledger, config(params, 1));
    let message: Message;
    try {
      message = getCompiledTransactionMessageDecoder().decode(getBase64Encoder().encode(encoded)) as Message;
    } catch (err) {
      throw invalidParams(`failed to deserialize the message: ${(err as Error).message}`);
    }
    if (message.version !== 'legacy' && message.version !== 0) throw invalidParams('unsupported message version');
    // Agave answers null for a message whose blockhash the bank no longer (or never) knew.
    return withContext(
      apiVersion,
      slot,
      ledger.isBlockhashValid(message.lifetimeToken) ? transactionFee(message) : null,
    );
  },

  getSignatureStatuses: (params, { ledger, apiVersion }) => {
    if (!Array.isArray(params[0])) throw invalidParams('the first parameter must be an array of signatures');
    if (params[0].length > MAX_SIGNATURE_STATUSES) {
      throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
    }
    const signatures = params[0].map((s) => string(s, 'signature'));
    config(params, 1);
    const slot = ledger.slot();
    const value = signatures.map((signature) => {
      const landed = ledger.transaction(signature);
      if (!landed) return null;
      const { confirmations, finalized } = ledger.confirmations(landed);
      return {
        confirmationStatus: finalized ? 'finalized' : 'confirmed',
        confirmations,
        err: landed.outcome.err,
        slot: landed.slot,
        status: status(landed.outcome.err),
      };
    });
    return withContext(apiVersion, slot, value);
  },

  getSignaturesForAddress: (params, { ledger }) => {
    const target = address(params[0]);
    const cfg = config(params, 1);
    const level = commitment(cfg);
    if (level === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    contextSlot(ledger, cfg);
    const limit = cfg.limit === undefined || cfg.limit === null ? MAX_SIGNATURES_FOR_ADDRESS : Number(cfg.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`);
    }
    const before = cfg.before === undefined || cfg.before === null ? null : string(cfg.before, 'before');
    const until = cfg.until === undefined || cfg.until === null ? null : string(cfg.until, 'until');
    let found = ledger.signaturesFor(target);
    if (level === 'finalized') found = found.filter((landed) => ledger.confirmations(landed).finalized);
    if (before !== null) {
      // As Agave: a `before` it does not know answers nothing; an unknown `until` bounds nothing.
      const at = found.findIndex((landed) => landed.decoded.signature === before);
      found = at === -1 ? [] : found.slice(at + 1);
    }
    if (until !== null) {
      const at = found.findIndex((landed) => landed.decoded.signature === until);
      if (at !== -1) found = found.slice(0, at);
    }
    return found.slice(0, limit).map((landed) => ({
      blockTime: landed.blockTime,
      confirmationStatus: ledger.confirmations(landed).finalized ? 'finalized' : 'confirmed',
      err: landed.outcome.err,
      memo: memoOf(landed),
      signature: landed.decoded.signature,
      slot: landed.slot,
    }));
  },

  getTransaction: (params, { ledger }) => {
    const signature = string(params[0], 'signature');
    // The second parameter may be the encoding alone (the older form) or a config object.
    const cfg = typeof params[1] === 'string' ? { encoding: params[1] } : config(params, 1);
    const level = commitment(cfg);
    if (level === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
    const encoding = cfg.encoding ?? 'json';
    if (encoding !== 'json' && encoding !== 'base64' && encoding !== 'base58') {
      throw invalidParams(`${String(encoding)} encoding is not supported for getTransaction by the local endpoint`);
    }
    const maxVersion = cfg.maxSupportedTransactionVersion;
    if (maxVersion !== undefined && maxVersion !== 0) throw invalidParams('maxSupportedTransactionVersion must be 0');
    const landed = ledger.transaction(signature);
    if (!landed || (level === 'finalized' && !ledger.confirmations(landed).finalized)) return null;
    const { version } = landed.decoded.message;
    if (version === 0 && maxVersion === undefined) {
      throw new RpcError(
        RPC_ERROR.unsupportedTransactionVersion,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the ' +
          'following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    const wire = landed.decoded.wire;
    return {
      blockTime: landed.blockTime,
      meta: transactionMeta(landed, maxVersion !== undefined),
      slot: landed.slot,
      transaction:
        encoding === 'json'
          ? jsonTransaction(landed)
          : encoding === 'base64'
            ? [getBase64Decoder().decode(wire), 'base64']
            : [getBase58Decoder().decode(wire), 'base58'],
      ...(maxVersion !== undefined ? { version } : {}),
    };
  },
};
