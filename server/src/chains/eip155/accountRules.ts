/** EVM accounts and chain ids, checked without a chain connection (merchant settlement addresses, the CLI). */
import { getAddress } from 'viem';
import type { AccountRules } from '../adapter.js';

const ACCOUNT = /^eip155:([1-9][0-9]{0,17}):(0x[0-9a-fA-F]{40})$/;
const CHAIN_ID = /^eip155:[1-9][0-9]{0,31}$/;

export const evmAccountRules: AccountRules = {
  namespace: 'eip155',
  isChainId: (caip2) => CHAIN_ID.test(caip2),
  normaliseAccount(caip10) {
    const match = ACCOUNT.exec(caip10);
    return match ? `eip155:${match[1]}:${getAddress(match[2]!)}` : null;
  },
  addressForm: '0x and 40 hex digits',
  chainIdForm: 'eip155:<chainId>',
  settlementExample: 'eip155:8453=0x…',
};
