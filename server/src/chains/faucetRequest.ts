/** What the faucet is asked for: a leaf of its own, so each namespace's faucet reads it without importing chains/faucet.ts. */
export interface FaucetRequest {
  /** CAIP-10. */
  account: string;
  /** CAIP-19 of an asset of the account's chain, or `native`. */
  asset: string;
  /** Minor units, a positive decimal integer string (the contract's pattern). */
  amount: string;
}
