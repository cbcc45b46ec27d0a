/**
 * The Solana RPC methods the local endpoint implements, with Agave's request and response shapes, and the local-only
 * `paygate_*` test controls. Every answer is read from, or executed by, the LiteSVM behind the ledger.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  TOKEN_2022_PROGRAM_ADDRESS,
  encodeAccount,
  parseDataSlice,
  parseEncoding,
  readMint,
  readTokenAccount,
  tokenAmount,
} from './accounts.js';
import { RPC_ERROR, RpcError, invalidParams } from './errors.js';
import type { Faucet } from './faucet.js';
import type { LocalLedger } from './ledger.js';
import { address, boolean, commitment, config, contextSlot, string, u64, withContext, type Params } from './params.js';
import { transactionMethods } from './rpcTransactions.js';

export interface RpcContext {
  ledger: LocalLedger;
  faucet: Faucet;
  genesisHash: string;
  apiVersion: string;
}

export type RpcMethod = (params: Params, ctx: RpcContext) => unknown;

const MAX_MULTIPLE_ACCOUNTS = 100;

const litesvmVersion = (createRequire(import.meta.url)('litesvm/package.json') as { version: string }).version;

/** What getVersion answers: the LiteSVM release that executes transactions, not an Agave version. */
export const LOCAL_SOLANA_CORE_VERSION = `litesvm-${litesvmVersion}`;
/** getVersion's `feature-set`: the first four bytes of SHA-256 of that version (a u32 id, as Agave's is). */
const FEATURE_SET_ID = createHash('sha256').update(LOCAL_SOLANA_CORE_VERSION).digest().readUInt32LE(0);

function accountConfig(params: Params, index: number, fallback: 'binary' | 'base64') {
  const cfg = config(params, index);
  return { cfg, encoding: parseEncoding(cfg.encoding, fallback), slice: parseDataSlice(cfg.dataSlice) };
}

const chainMethods: Record<string, RpcMethod> = {
  getGenesisHash: (_params, { genesisHash }) => genesisHash,

  getHealth: () => 'ok',

  getVersion: () => ({ 'feature-set': FEATURE_SET_ID, 'solana-core': LOCAL_SOLANA_CORE_VERSION }),

  getSlot: (params, { ledger }) => contextSlot(ledger, config(params, 0)),

  // Both from the history the ledger still holds: every slot is a block here, and the ledger forgets whole transactions
  // oldest first, so the lowest slot with information and the lowest complete block are the same slot.
  minimumLedgerSlot: (_params, { ledger }) => ledger.firstAvailableSlot(),

  getFirstAvailableBlock: (_params, { ledger }) => ledger.firstAvailableSlot(),

  getBlockHeight: (params, { ledger }) => {
    const cfg = config(params, 0);
    contextSlot(ledger, cfg);
    return ledger.blockHeight(commitment(cfg));
  },

  getLatestBlockhash: (params, { ledger, apiVersion }) => {
    const slot = contextSlot(ledger, config(params, 0));
    return withContext(apiVersion, slot, ledger.latestBlockhash());
  },

  isBlockhashValid: (params, { ledger, apiVersion }) => {
    const blockhash = string(params[0], 'blockhash');
    const slot = contextSlot(ledger, config(params, 1));
    return withContext(apiVersion, slot, ledger.isBlockhashValid(blockhash));
  },

  getBalance: (params, { ledger, apiVersion }) => {
    const owner = address(params[0]);
    const slot = contextSlot(ledger, config(params, 1));
    const account = ledger.getAccount(owner);
    return withContext(apiVersion, slot, account.exists ? account.lamports : 0n);
  },

  getAccountInfo: (params, { ledger, apiVersion }) => {
    const target = address(params[0]);
    const { cfg, encoding, slice } = accountConfig(params, 1, 'binary');
    const slot = contextSlot(ledger, cfg);
    return withContext(apiVersion, slot, encodeAccount(ledger.getAccount(target), encoding, slice, ledger.getAccount));
  },

  getMultipleAccounts: (params, { ledger, apiVersion }) => {
    if (!Array.isArray(params[0])) throw invalidParams('the first parameter must be an array of addresses');
    if (params[0].length > MAX_MULTIPLE_ACCOUNTS) {
      throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    }
    const targets = params[0].map((a) => address(a));
    const { cfg, encoding, slice } = accountConfig(params, 1, 'base64');
    const slot = contextSlot(ledger, cfg);
    const value = targets.map((t) => encodeAccount(ledger.getAccount(t), encoding, slice, ledger.getAccount));
    return withContext(apiVersion, slot, value);
  },

  getMinimumBalanceForRentExemption: (params, { ledger }) => {
    const space = u64(params[0] ?? 0, 'data length');
    contextSlot(ledger, config(params, 1));
    return ledger.svm.minimumBalanceForRentExemption(space);
  },

  getTokenAccountsByOwner: (params, { ledger, apiVersion }) => {
    const owner = address(params[0], 'owner');
    const filter = (params[1] ?? {}) as { mint?: unknown; programId?: unknown };
    let program: Address;
    let mint: Address | null = null;
    if (filter.mint !== undefined) {
      mint = address(filter.mint, 'mint');
      const mintAccount = ledger.getAccount(mint);
      if (!mintAccount.exists || !readMint(mintAccount)) throw invalidParams('could not find mint');
      program = mintAccount.programAddress;
    } else if (filter.programId !== undefined) {
      program = address(filter.programId, 'programId');
      if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM_ADDRESS) {
        throw invalidParams('unrecognized Token program id');
      }
    } else {
      throw invalidParams('the filter must be {"mint": …} or {"programId": …}');
    }
    const { cfg, encoding, slice } = accountConfig(params, 2, 'binary');
    const slot = contextSlot(ledger, cfg);
    const value = ledger
      .programAccounts(program)
      .filter((account) => {
        const token = readTokenAccount(account);
        return token !== null && token.owner === owner && (mint === null || token.mint === mint);
      })
      .map((account) => ({
        account: encodeAccount({ ...account, exists: true }, encoding, slice, ledger.getAccount),
        pubkey: account.address,
      }));
    return withContext(apiVersion, slot, value);
  },

  getTokenAccountBalance: (params, { ledger, apiVersion }) => {
    const target = address(params[0]);
    const slot = contextSlot(ledger, config(params, 1));
    const account = ledger.getAccount(target);
    const token = account.exists ? readTokenAccount(account) : null;
    const mint = token && readMint(ledger.getAccount(token.mint));
    if (!token || !mint) throw invalidParams('not a Token account');
    return withContext(apiVersion, slot, tokenAmount(token.amount, mint.decimals));
  },

  requestAirdrop: async (params, { ledger, faucet }) => {
    const recipient = address(params[0], 'recipient');
    const lamports = u64(params[1], 'lamports');
    contextSlot(ledger, config(params, 2));
    try {
      return await faucet.airdropSol(recipient, lamports);
    } catch (err) {
      throw new RpcError(RPC_ERROR.internalError, `airdrop request failed: ${(err as Error).message}`);
    }
  },
};

/** Local-only test controls; no Solana cluster has them, so nothing but tests and development may depend on them. */
const testControls: Record<string, RpcMethod> = {
  paygate_expireBlockhash: (_params, { ledger }) => {
    ledger.sync();
    const expired = ledger.svm.latestBlockhash();
    ledger.expireBlockhash();
    return expired;
  },

  paygate_holdTransactions: (params, { ledger }) => {
    ledger.holdTransactions(boolean(params[0], 'hold', true));
    return ledger.holdingTransactions;
  },

  paygate_warpSlots: (params, { ledger }) => {
    const slots = u64(params[0], 'slots');
    if (slots === 0n || slots > 100_000_000n) throw invalidParams('slots must be between 1 and 100000000');
    ledger.warpSlots(slots);
    return ledger.slot();
  },
};

export const rpcMethods: Record<string, RpcMethod> = { ...chainMethods, ...transactionMethods, ...testControls };
