/** The checkout on EVM chains: the `eip155` ChainAdapter (chains/adapter.ts). */
import { getAddress, type Address } from 'viem';
import type { Database } from '../../db/connect.js';
import { ApiError } from '../../errors.js';
import type { ChainAdapter, Holding } from '../adapter.js';
import type { Chains, EvmChain } from '../index.js';
import { evmFinality } from './finality.js';
import { evmAccountRules } from './accountRules.js';
import { isEndpointFailure } from '../rpcPost.js';
import { erc20Abi, multicall3BalanceAbi } from './abis.js';
import { evmActions } from './actions.js';
import {
  authorizationProgress,
  DEFAULT_SETTLE_OPTIONS,
  relayAgainIfLost,
  relayAuthorization,
  transactionProgress,
  type SettleOptions,
} from './settle.js';
import { verifyAuthorization, verifyTransaction } from './verify.js';

/**
 * `eip3009`: the buyer signs an authorization the service relays; `erc20` and `native`: the buyer sends the transfer.
 */
export type EvmOptionKind = 'eip3009' | 'erc20' | 'native';

/** An option's `etaS`: a relay or send, then the confirmations, at the chain's configured block time. */
export function etaSeconds(chain: EvmChain): number {
  return Math.ceil(chain.config.blockTimeS * (chain.config.confirmations + 1));
}

/** How long an account's balances are reused between option listings, in wall time (docs/decisions.md §17). */
export const BALANCE_CACHE_MS = 3_000;

export interface EvmAdapterOptions {
  /** How long balances are reused between option listings (wall time); BALANCE_CACHE_MS by default. */
  balanceCacheMs?: number;
  settle?: Partial<SettleOptions>;
  wallNow?: () => number;
}

export function createEvmAdapter(chains: Chains, db: Database, options: EvmAdapterOptions = {}): ChainAdapter {
  const settle = { ...DEFAULT_SETTLE_OPTIONS, ...options.settle };
  const cacheMs = options.balanceCacheMs ?? BALANCE_CACHE_MS;
  const wallNow = options.wallNow ?? (() => performance.now());
  const balances = new Map<string, { at: number; values: Promise<bigint[]> }>();

  const chainOf = (caip2: string): EvmChain => {
    const chain = chains.evm.find((c) => c.config.caip2 === caip2);
    if (!chain) throw new ApiError('params_validation', `This server no longer serves ${caip2}.`);
    return chain;
  };

  /** Every configured asset's balance in one multicall; a reverted read counts as nothing held, an RPC failure throws. */
  const readBalances = (chain: EvmChain, owner: Address): Promise<bigint[]> => {
    const key = `${chain.config.caip2}:${owner}`;
    const cached = balances.get(key);
    if (cached && wallNow() - cached.at < cacheMs) return cached.values;
    const values = chain.clients.public
      .multicall({
        allowFailure: true,
        contracts: chain.config.assets.map((asset) =>
          asset.address
            ? { address: asset.address, abi: erc20Abi, functionName: 'balanceOf' as const, args: [owner] as const }
            : {
                address: chain.config.multicall3,
                abi: multicall3BalanceAbi,
                functionName: 'getEthBalance' as const,
                args: [owner] as const,
              },
        ),
      })
      .then((results) =>
        results.map((r) => {
          if (r.status === 'success') return r.result as bigint;
          // multicall turns a failed request into failed results: that is an unreachable chain, not an empty wallet.
          if (isEndpointFailure(r.error)) throw r.error;
          return 0n;
        }),
      );
    values.catch(() => balances.delete(key));
    balances.set(key, { at: wallNow(), values });
    return values;
  };

  return {
    ...evmAccountRules,

    terms: (option) => ({ settledByService: option.claims.kind === 'eip3009' }),

    async holdings({ accounts, live, settlement }) {
      const mode = live ? 'live' : 'test';
      const unavailable = new Set<string>();
      const perAccount = await Promise.all(
        accounts.map(async (account): Promise<Holding[]> => {
          const caip2 = account.slice(0, account.lastIndexOf(':'));
          const chain = chains.evm.find((c) => c.config.caip2 === caip2 && c.config.mode === mode);
          const recipient = settlement[caip2];
          if (!chain || !recipient) return [];
          const owner = getAddress(account.slice(account.lastIndexOf(':') + 1));
          let values: bigint[];
          try {
            values = await readBalances(chain, owner);
          } catch {
            // An unreachable chain yields no options rather than failing the whole answer; the answer names it.
            unavailable.add(caip2);
            return [];
          }
          return chain.config.assets.map((asset, i) => ({
            account,
            chain: caip2,
            kind: (asset.address === null ? 'native' : asset.eip3009 ? 'eip3009' : 'erc20') satisfies EvmOptionKind,
            recipient: getAddress(recipient),
            balance: values[i] ?? 0n,
            etaS: etaSeconds(chain),
            asset: {
              caip19: asset.caip19,
              decimals: asset.decimals,
              symbol: asset.symbol,
              name: asset.name,
              peg: (asset as { peg?: string | null }).peg ?? null,
              iconUrl: asset.iconUrl,
              networkIconUrl: asset.networkIconUrl,
              networkName: asset.networkName,
            },
          }));
        }),
      );
      return { holdings: perAccount.flat(), unavailable: [...unavailable] };
    },

    actions: (option) => evmActions(chainOf(option.claims.chain), option),

    resolveBuild() {
      return Promise.reject(new ApiError('params_validation', 'data is not a build action of this option.'));
    },

    verify(option, results, context) {
      const chain = chainOf(option.claims.chain);
      return option.claims.kind === 'eip3009'
        ? verifyAuthorization(chain, option, results)
        : verifyTransaction(chain, option, results, context);
    },

    async submit(claim) {
      if (claim.kind !== 'eip3009') return { txId: claim.txId };
      return relayAuthorization(db, chainOf(claim.chain), claim);
    },

    async progress(claim, now) {
      const chain = chainOf(claim.chain);
      if (claim.kind !== 'eip3009') return transactionProgress(chain, claim, now, settle);
      const progress = await authorizationProgress(chain, claim, now, settle);
      return relayAgainIfLost(db, chain, claim, progress, now);
    },

    finality: (caip2, txId) => evmFinality(chainOf(caip2), txId),
  };
}
