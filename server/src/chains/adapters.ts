/**
 * Where the namespaces are assembled: their account rules (pure, usable without chains) and their adapters (built
 * once per runtime over the running chains); chains/index.ts starts and lists their chains. A third namespace is
 * added in these two files and in its own folder.
 */
import type { Database } from '../db/connect.js';
import type { AccountRules, ChainAdapter } from './adapter.js';
import { evmAccountRules } from './eip155/accountRules.js';
import { createEvmAdapter, type EvmAdapterOptions } from './eip155/adapter.js';
import { evmDemoSettlement, evmSimulatedPayment } from './eip155/demo.js';
import { evmSettlementKeys } from './eip155/depositKeys.js';
import { createEvmSettlement } from './eip155/settlement.js';
import type { Chains } from './index.js';
import { solanaAccountRules } from './solana/accountRules.js';
import { createSolanaAdapter } from './solana/adapter.js';
import { solanaDemoSettlement } from './solana/demo.js';
import { solanaTransactionRequests } from './solana/pay.js';
import { createSolanaSettlement } from './solana/settlement.js';

export const accountRules: readonly AccountRules[] = [evmAccountRules, solanaAccountRules];

/** The demo merchant's payout addresses: the local chains' (accounts/bootstrap.ts). */
export const demoSettlementAddresses: Record<string, string> = Object.fromEntries([
  evmDemoSettlement,
  solanaDemoSettlement,
]);

/** The chain, buyer and token test mode's `simulate` names (payments/simulate.ts). */
export const simulatedPayment = evmSimulatedPayment;

/**
 * The deposit seed's public fingerprint (settlement/seedGuard.ts): the EVM collection account `m/44'/60'/0'/0/0`,
 * derived without any chain configured, so it names the seed whatever PAYGATE_CHAINS says.
 */
export function depositSeedFingerprint(seed: Uint8Array): string {
  return evmSettlementKeys(seed).address({ role: 'collection' });
}

export interface AdapterOptions {
  evm?: EvmAdapterOptions;
  /** The BIP-39 seed of PAYGATE_DEPOSIT_SEED; without it no adapter offers collected settlement. */
  depositSeed?: Uint8Array | null;
}

export function createAdapters(chains: Chains, db: Database, options: AdapterOptions = {}): ChainAdapter[] {
  const seed = options.depositSeed ?? null;
  return [
    {
      ...createEvmAdapter(chains, db, options.evm),
      ...(seed && { settlement: createEvmSettlement(chains, seed, db) }),
    },
    {
      ...createSolanaAdapter(chains.solana),
      transactionRequests: solanaTransactionRequests(chains.solana),
      ...(seed && { settlement: createSolanaSettlement(chains.solana, seed) }),
    },
  ];
}

function namespaceOf(caip: string): string {
  return caip.split(':', 1)[0]!;
}

/** The rules or adapter of the namespace a CAIP-2 chain id or CAIP-10 account belongs to. */
export function forNamespaceOf<T extends AccountRules>(list: readonly T[], chainOrAccount: string): T | undefined {
  const namespace = namespaceOf(chainOrAccount);
  return list.find((a) => a.namespace === namespace);
}
