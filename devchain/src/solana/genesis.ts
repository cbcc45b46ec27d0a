/**
 * The identity of the local Solana chain and its fixed keys. Everything here is derived from public strings with
 * SHA-256, so every run (and anyone reading this file) gets the same genesis hash, CAIP-2 id, mint and accounts. The
 * keys are worthless by design: anyone can recompute them, which is the point on a local chain and the reason they
 * must never hold anything on devnet or mainnet.
 */
import { createHash } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, getBase58Decoder, type KeyPairSigner } from '@solana/kit';

/** The local chain's genesis hash is SHA-256 of this string, in base58. */
export const LOCAL_SOLANA_GENESIS_SEED = 'paygate local solana genesis v1';

/**
 * The local chain's keys: each private key (the 32-byte Ed25519 seed) is SHA-256 of its string.
 * - `faucet`: holds the genesis SOL, pays the faucet's transactions and is TUSD's mint authority;
 * - `feePayer`: the gateway's relayer on the local chain (pays transaction fees), funded at genesis;
 * - `settlement`: receives the demo merchant's payouts;
 * - `tusdMint`: the keypair whose address is the TUSD mint account.
 */
export const LOCAL_SOLANA_KEY_SEEDS = {
  faucet: 'paygate local solana key: faucet',
  feePayer: 'paygate local solana key: fee payer',
  settlement: 'paygate local solana key: settlement',
  tusdMint: 'paygate local solana key: tusd mint',
} as const;

export type LocalSolanaKeyName = keyof typeof LOCAL_SOLANA_KEY_SEEDS;

function sha256(text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text, 'utf8').digest());
}

/** The local chain's genesis hash (base58 of 32 bytes), which `getGenesisHash` answers. */
export function localSolanaGenesisHash(): string {
  return getBase58Decoder().decode(sha256(LOCAL_SOLANA_GENESIS_SEED));
}

/**
 * A Solana chain's CAIP-2 id: `solana:` and the first 32 characters of its base58 genesis hash (the CAIP-30 rule), e.g.
 * mainnet `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`, devnet `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1`.
 */
export function solanaCaip2FromGenesisHash(genesisHash: string): `solana:${string}` {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesisHash)) {
    throw new Error(`${genesisHash} is not a base58 genesis hash`);
  }
  return `solana:${genesisHash.slice(0, 32)}`;
}

/** The 32-byte Ed25519 private key of a local key (its seed string's SHA-256). */
export function localSolanaPrivateKey(name: LocalSolanaKeyName): Uint8Array {
  return sha256(LOCAL_SOLANA_KEY_SEEDS[name]);
}

/** A signer for a local key. Extractable, so tools can export it (it is public anyway). */
export function localSolanaSigner(name: LocalSolanaKeyName): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(localSolanaPrivateKey(name), true);
}
