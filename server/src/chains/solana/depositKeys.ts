/**
 * Solana keys of collected settlement, derived from the deposit seed by SLIP-0010 (ed25519, hardened steps only) on
 * the paths Solana wallets follow (Phantom's and Solflare's `m/44'/501'/n'/0'`: the collection account is their first
 * account): deposits are `m/44'/501'/i'/0'` (i ≥ 1, the payment's derivation index), the collection account
 * `m/44'/501'/0'/0'`, and development's treasury `m/44'/501'/0'/1'`.
 */
import { createHmac } from 'node:crypto';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import type { KeyRole } from '../adapter.js';

const HARDENED = 0x80000000;

interface Node {
  key: Buffer;
  chainCode: Buffer;
}

function masterNode(seed: Uint8Array): Node {
  const i = createHmac('sha512', 'ed25519 seed').update(seed).digest();
  return { key: i.subarray(0, 32), chainCode: i.subarray(32) };
}

/** SLIP-0010's child key derivation for ed25519: hardened only (`0x00 || key || index`). */
function child(node: Node, index: number): Node {
  const data = Buffer.alloc(37);
  node.key.copy(data, 1);
  data.writeUInt32BE((index + HARDENED) >>> 0, 33);
  const i = createHmac('sha512', node.chainCode).update(data).digest();
  return { key: i.subarray(0, 32), chainCode: i.subarray(32) };
}

/** Derives `m/44'/501'/<a>'/<b>'`. */
function derive(seed: Uint8Array, a: number, b: number): Uint8Array {
  let node = masterNode(seed);
  for (const index of [44, 501, a, b]) node = child(node, index);
  return new Uint8Array(node.key);
}

export interface SolanaSettlementKeys {
  signer(role: KeyRole): Promise<KeyPairSigner>;
  address(role: KeyRole): Promise<string>;
}

export function solanaSettlementKeys(seed: Uint8Array): SolanaSettlementKeys {
  const signers = new Map<string, Promise<KeyPairSigner>>();
  const signer = (role: KeyRole): Promise<KeyPairSigner> => {
    if (role.role === 'deposit' && (!Number.isInteger(role.index) || role.index < 1 || role.index >= 2 ** 31))
      throw new Error(`deposit index ${role.index} is outside 1..2^31-1`);
    const id = role.role === 'deposit' ? `d${role.index}` : role.role;
    let found = signers.get(id);
    if (!found) {
      const [a, b] = role.role === 'deposit' ? [role.index, 0] : role.role === 'collection' ? [0, 0] : [0, 1];
      found = createKeyPairSignerFromPrivateKeyBytes(derive(seed, a, b));
      if (role.role !== 'deposit') signers.set(id, found);
    }
    return found;
  };
  return { signer, address: async (role) => (await signer(role)).address };
}
