/** Pricing of payment options: fiat amounts to token amounts (docs/decisions.md §11). */
export {
  createPricing,
  type FiatAmount,
  type PricedAsset,
  type Pricing,
  type PricingChain,
  type PricingDeps,
  type Quote,
} from './pricing.js';
export { BUILT_IN_RATES, loadStaticRates, type StaticRates } from './staticRates.js';
export { pricedCurrenciesOf, type PricedCurrencies } from './pricedCurrencies.js';
