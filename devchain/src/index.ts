/**
 * The local chains of `PAYGATE_CHAINS=local`, for development and tests only: anvil with TUSD and Multicall3, a
 * LiteSVM-backed Solana JSON-RPC endpoint, and their faucets. Nothing here knows the server: it hands out RPC URLs,
 * addresses, keys and functions, and the server turns them into its chain configuration and clients.
 */
export { ANVIL_KEYS, CANONICAL_MULTICALL3, LOCAL_CAIP2, LOCAL_CHAIN_ID, LOCAL_POLLING_MS } from './evm/identity.js';
export { startAnvilChain } from './evm/chain.js';
export type { AnvilChain, AnvilChainOptions } from './evm/chain.js';
export { anvilBinary, spawnAnvil, type AnvilProcess } from './evm/anvil.js';
export { GAS_TOP_UP, evmFaucet } from './evm/faucet.js';
export type { EvmFaucet } from './evm/faucet.js';
export { Multicall3, TestPriceFeed, TestUSD } from './evm/artifacts.generated.js';
export { FaucetRefusal, isFaucetRefusal } from './refusal.js';
export * from './solana/chain.js';
export { INSTRUCTION_ERROR_NAMES, TRANSACTION_ERROR_NAMES } from './solana/errors.js';
