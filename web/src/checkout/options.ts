/** What the page knows about a payable option beyond the gateway's answer: its network and whether it needs gas. */
import type { PayableOption } from '@paygate/sdk-wallet';

/** The CAIP-2 chain of a CAIP-10 account. */
export function chainOfAccount(account: string): string {
  return account.split(':').slice(0, 2).join(':');
}

export function isGasless(option: PayableOption): boolean {
  if (option.account.startsWith('solana:')) return true;
  return option.actions.some((a) => a.type === 'walletRpc' && a.data.method === 'eth_signTypedData_v4');
}
