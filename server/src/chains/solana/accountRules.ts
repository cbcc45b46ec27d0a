/** Solana accounts and chain ids, checked without a chain connection (merchant settlement addresses, the CLI). */
import { isAddress } from '@solana/kit';
import type { AccountRules } from '../adapter.js';

const ACCOUNT = /^solana:([1-9A-HJ-NP-Za-km-z]{32}):([1-9A-HJ-NP-Za-km-z]{32,44})$/;
// A Solana CAIP-2 reference is the first 32 characters of the genesis hash (base58).
const CHAIN_ID = /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/;

export const solanaAccountRules: AccountRules = {
  namespace: 'solana',
  isChainId: (caip2) => CHAIN_ID.test(caip2),
  normaliseAccount(caip10) {
    // isAddress decodes the base58: 32–44 characters alone would let strings that overflow 32 bytes in.
    const match = ACCOUNT.exec(caip10);
    return match && isAddress(match[2]!) ? caip10 : null;
  },
  addressForm: 'a base58 public key',
  chainIdForm: 'solana:<reference>',
  settlementExample: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp=…',
};
