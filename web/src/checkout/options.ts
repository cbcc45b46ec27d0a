/** What the page knows about a payable option beyond the gateway's answer: its network and whether it needs gas. */
import type { PayableOption } from '@paygate/sdk-wallet';
import { isPegged } from '../kit/amounts.js';

/** The CAIP-2 chain of a CAIP-10 account. */
export function chainOfAccount(account: string): string {
  return account.split(':').slice(0, 2).join(':');
}

export function isGasless(option: PayableOption): boolean {
  if (option.account.startsWith('solana:')) return true;
  return option.actions.some((a) => a.type === 'walletRpc' && a.data.method === 'eth_signTypedData_v4');
}

/**
 * The options, simplest to pay first (decisions.md §26.8): a stablecoin before a volatile asset (its amount is the
 * price the buyer saw, and it needs no quote that expires), and within each, gasless before an option that needs
 * the chain's native token for gas. Otherwise the gateway's order stands.
 */
export function simplestFirst(options: PayableOption[]): PayableOption[] {
  const rank = (o: PayableOption) => (isPegged(o.amount.display?.assetSymbol) ? 0 : 2) + (isGasless(o) ? 0 : 1);
  return options
    .map((option, index) => ({ option, index }))
    .sort((a, b) => rank(a.option) - rank(b.option) || a.index - b.index)
    .map(({ option }) => option);
}
