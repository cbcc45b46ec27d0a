/**
 * Deposit instructions on EVM chains (chains/adapter.ts `DepositInstructions`, docs/decisions.md §22.2). A deposit
 * is paid in an EIP-3009 token only: the sweep out of a deposit address is an authorization its key signs and the
 * relayer submits, so the address never needs gas. Ether and plain ERC-20 tokens are not offered (they would need
 * gas at the deposit address, or a forwarder contract).
 */
import { getAddress } from 'viem';
import type { DepositInstructions } from '../adapter.js';
import type { Chains } from '../index.js';

/**
 * EIP-681: `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<amount>`. The chain id is always
 * written, so a wallet on another network cannot send it there; the amount is in the token's minor units as a plain
 * decimal integer (EIP-681 also allows `2.5e6`-style numbers, which some wallets misread).
 */
export function eip681TransferUri(input: {
  chainId: number;
  token: string;
  recipient: string;
  amount: bigint;
}): string {
  if (input.amount < 0n) throw new RangeError('a transfer amount is not negative');
  const token = getAddress(input.token);
  const recipient = getAddress(input.recipient);
  return `ethereum:${token}@${input.chainId}/transfer?address=${recipient}&uint256=${input.amount.toString()}`;
}

export function evmDepositInstructions(chains: Chains): DepositInstructions {
  const chainOf = (caip2: string) => chains.evm.find((c) => c.config.caip2 === caip2);
  return {
    assets(caip2) {
      const chain = chainOf(caip2);
      if (!chain) return [];
      return chain.config.assets.filter((a) => a.address !== null && a.eip3009).map((a) => a.caip19);
    },
    paymentUri({ chain: caip2, asset, address, amount }) {
      const chain = chainOf(caip2);
      const token = chain?.config.assets.find((a) => a.caip19 === asset)?.address;
      if (!chain || !token) throw new Error(`${asset} is not a token of ${caip2}`);
      return eip681TransferUri({ chainId: chain.config.chainId, token, recipient: address, amount });
    },
  };
}
