/**
 * The checkout's dependencies, built once per runtime: the chain adapters, pricing, screening and the option
 * secret. Options, fetch, confirm and the claim tasks all take a `Checkout`.
 */
import type { ChainAdapter } from '../chains/adapter.js';
import { createAdapters, forNamespaceOf, type AdapterOptions } from '../chains/adapters.js';
import { allChains, type Chains } from '../chains/index.js';
import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import { ApiError } from '../errors.js';
import { createPricing, type Pricing } from '../quotes/index.js';
import { seedOf } from '../settlement/seed.js';
import type { BuyerPaymentDeps } from './buyerPayments.js';
import { loadScreeningList, type ScreeningList } from './screening.js';
import type { PartialArrivals } from '../webhooks/partialPayment.js';

export interface Checkout extends BuyerPaymentDeps {
  chains: Chains;
  config: Config;
  secretBox: SecretBox;
  /** Signs option ids. */
  optionSecret: Buffer;
  /** Verifies option ids: the current secret first, then the retired ones (§29.15). */
  optionSecrets: readonly Buffer[];
  adapters: ChainAdapter[];
  pricing: Pricing;
  screening: ScreeningList;
  /** Detection's webhook port for partly paid payments (§26.26); the runtime sets it. */
  partialArrivals?: PartialArrivals;
}

export interface CheckoutOptions extends AdapterOptions {
  pricing?: Pricing;
}

export function createCheckout(
  deps: BuyerPaymentDeps & { config: Config; secretBox: SecretBox },
  options: CheckoutOptions = {},
): Checkout | null {
  const chains = deps.chains;
  if (!chains) return null;
  const optionSecret = deps.config.optionSecret;
  if (!optionSecret) throw new Error('PAYGATE_OPTION_SECRET is required to serve the checkout');
  return {
    ...deps,
    chains,
    optionSecret,
    optionSecrets: [optionSecret, ...deps.config.optionSecretsPrevious],
    adapters: createAdapters(chains, deps.db, {
      ...options,
      depositSeed:
        options.depositSeed ??
        (deps.config.settlement.depositSeed === null ? null : seedOf(deps.config.settlement.depositSeed)),
    }),
    pricing: options.pricing ?? createPricing({ chains: allChains(chains), config: deps.config, logger: deps.logger }),
    screening: loadScreeningList(deps.config.screeningFile),
  };
}

export function adapterFor(checkout: Checkout, chainOrAccount: string): ChainAdapter | undefined {
  return forNamespaceOf(checkout.adapters, chainOrAccount);
}

export function requireAdapter(checkout: Checkout, chain: string): ChainAdapter {
  const adapter = adapterFor(checkout, chain);
  if (!adapter) throw new ApiError('params_validation', `This server does not serve ${chain}.`);
  return adapter;
}
