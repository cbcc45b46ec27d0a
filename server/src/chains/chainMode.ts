/**
 * Payments of a mode are served only on chains of that mode: live payments never touch a testnet, and back. A leaf of
 * its own so that the namespaces' configurations and the configured chain can name it without importing the file
 * that assembles them (chainsSetting.ts).
 */
export type ChainMode = 'live' | 'test';
