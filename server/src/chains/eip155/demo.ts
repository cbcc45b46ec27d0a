/** The demo accounts' and test mode's EVM facts (accounts/bootstrap.ts, payments/simulate.ts). */

/** anvil's default account #1: #0 is the deployer and faucet of the local chain, so payouts stay distinguishable. */
export const evmDemoSettlement: [string, string] = ['eip155:31337', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'];

/** Where a simulated payment says it was paid: a token no chain configures (docs/decisions.md §7). */
export const evmSimulatedPayment = {
  chain: 'eip155:31337',
  buyer: 'eip155:31337:0x000000000000000000000000000000000000dEaD',
  unit: 'caip19/eip155:31337/erc20:0x0000000000000000000000000000000000000000',
} as const;
