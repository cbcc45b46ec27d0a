/**
 * EVM keys of collected settlement, derived from the deposit seed by BIP-44 paths every EVM wallet follows
 * (MetaMask's "Account 1" is the collection account): deposits are `m/44'/60'/0'/0/i` (i ≥ 1, the payment's
 * derivation index), the collection account `m/44'/60'/0'/0/0`, and development's treasury `m/44'/60'/1'/0/0`.
 * One key serves every EVM chain, so a deposit address is the same on each.
 */
import { bytesToHex, type Address } from 'viem';
import { HDKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { KeyRole } from '../adapter.js';

export interface EvmSettlementKeys {
  account(role: KeyRole): PrivateKeyAccount;
  address(role: KeyRole): Address;
}

export function evmSettlementKeys(seed: Uint8Array): EvmSettlementKeys {
  const master = HDKey.fromMasterSeed(seed);
  // The parent of every deposit, derived once: a deposit is then one non-hardened step.
  const external = master.derive("m/44'/60'/0'/0");
  const accounts = new Map<string, PrivateKeyAccount>();
  const account = (role: KeyRole): PrivateKeyAccount => {
    const id = role.role === 'deposit' ? `d${role.index}` : role.role;
    let found = accounts.get(id);
    if (!found) {
      let node: HDKey;
      if (role.role === 'deposit') {
        if (!Number.isInteger(role.index) || role.index < 1 || role.index >= 2 ** 31)
          throw new Error(`deposit index ${role.index} is outside 1..2^31-1`);
        node = external.deriveChild(role.index);
      } else if (role.role === 'collection') node = external.deriveChild(0);
      else node = master.derive("m/44'/60'/1'/0/0");
      found = privateKeyToAccount(bytesToHex(node.privateKey!));
      // Deposits are derived once per payment and rarely again (a sweep); only the fixed roles stay cached.
      if (role.role !== 'deposit') accounts.set(id, found);
    }
    return found;
  };
  return { account, address: (role) => account(role).address };
}
