/**
 * The one master secret of collected settlement (PAYGATE_DEPOSIT_SEED): a BIP-39 mnemonic. Every deposit address,
 * the collection account and (in development) the treasury are derived from it by standard BIP-32/SLIP-10 paths
 * (each namespace's `depositKeys.ts`), so an operator who holds the words can recover every key with ordinary wallet
 * software, without Paygate and without its database (docs/decisions.md §22).
 */
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';

/** Normalised as BIP-39 reads it: words separated by single spaces, lower case. */
export function normaliseMnemonic(mnemonic: string): string {
  return mnemonic.trim().toLowerCase().split(/\s+/).join(' ');
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normaliseMnemonic(mnemonic), wordlist);
}

/** 24 words (256 bits of entropy), for development's generated seed and `paygate admin` to suggest. */
export function newMnemonic(): string {
  return generateMnemonic(wordlist, 256);
}

/** The BIP-39 seed (64 bytes, no passphrase) every derivation starts from. */
export function seedOf(mnemonic: string): Uint8Array {
  return mnemonicToSeedSync(normaliseMnemonic(mnemonic));
}
