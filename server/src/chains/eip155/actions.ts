/**
 * The EVM actions of an option, derived from the option token alone so that confirm can rebuild exactly what was
 * issued (docs/decisions.md §17):
 *
 * - `eip3009`: `eth_signTypedData_v4` of a `TransferWithAuthorization` to the settlement address, its nonce derived
 *   from the payment and the option's MAC, valid until the option's deadline;
 * - `erc20` / `native`: `eth_sendTransaction` of a `transfer` (or a value transfer) whose calldata ends with a
 *   32-byte reference derived the same way, which binds the transaction to this payment and option.
 */
import {
  concat,
  encodeFunctionData,
  encodePacked,
  getAddress,
  keccak256,
  toHex,
  type Address,
  type Hex,
  type TypedDataDomain,
} from 'viem';
import type { Action, VerifiedOption } from '../adapter.js';
import type { EvmChain } from '../index.js';
import { eip3009Abi, erc20Abi } from './abis.js';

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

const eip712DomainType = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

/** `eip155:<id>:<address>` → the checksummed address. */
export function addressOf(caip10: string): Address {
  return getAddress(caip10.slice(caip10.lastIndexOf(':') + 1));
}

/** The token contract of an `erc20` CAIP-19 asset, or null for the native coin (`slip44`). */
export function tokenOf(caip19: string): Address | null {
  const match = /\/erc20:(0x[0-9a-fA-F]{40})$/.exec(caip19);
  return match ? getAddress(match[1]!) : null;
}

/** The EIP-3009 nonce of an option: unpredictable without the secret, the same every time it is rebuilt. */
export function authorizationNonce(option: VerifiedOption): Hex {
  return keccak256(
    encodePacked(['string', 'string', 'bytes32'], ['paygate:eip3009', option.claims.paymentId, toHex(option.mac)]),
  );
}

/** The 32 bytes a direct transfer's calldata ends with. */
export function paymentReference(option: VerifiedOption): Hex {
  return keccak256(
    encodePacked(['string', 'string', 'bytes32'], ['paygate:ref', option.claims.paymentId, toHex(option.mac)]),
  );
}

export interface DirectCall {
  to: Address;
  data: Hex;
  value: bigint;
}

/** The exact transaction a direct option asks the wallet to send. */
export function directCall(option: VerifiedOption): DirectCall {
  const { claims } = option;
  const recipient = getAddress(claims.recipient);
  const amount = BigInt(claims.amount);
  const reference = paymentReference(option);
  if (claims.kind === 'native') return { to: recipient, data: reference, value: amount };
  const token = tokenOf(claims.asset);
  if (!token) throw new Error(`option asset ${claims.asset} is not an ERC-20 token`);
  const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] });
  // Solidity's decoder ignores trailing calldata, so every ERC-20 accepts the reference unchanged.
  return { to: token, data: concat([transfer, reference]), value: 0n };
}

export interface Authorization {
  domain: TypedDataDomain & { name: string; version: string; chainId: number; verifyingContract: Address };
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
}

/** The token's EIP-712 domain name and version, read on chain once per token (never configured: §14). */
export function tokenDomain(chain: EvmChain, token: Address): Promise<{ name: string; version: string }> {
  const domains = chain.clients.tokenDomains;
  const key = `${chain.config.caip2}:${token}`;
  let domain = domains.get(key);
  if (!domain) {
    domain = (async () => {
      const [name, version] = await Promise.all([
        chain.clients.public.readContract({ address: token, abi: erc20Abi, functionName: 'name' }),
        chain.clients.public.readContract({ address: token, abi: eip3009Abi, functionName: 'version' }),
      ]);
      return { name, version };
    })();
    domain.catch(() => domains.delete(key));
    domains.set(key, domain);
  }
  return domain;
}

export async function authorizationOf(chain: EvmChain, option: VerifiedOption): Promise<Authorization> {
  const { claims } = option;
  const token = tokenOf(claims.asset);
  if (!token) throw new Error(`option asset ${claims.asset} is not an ERC-20 token`);
  const { name, version } = await tokenDomain(chain, token);
  return {
    domain: { name, version, chainId: chain.config.chainId, verifyingContract: token },
    message: {
      from: addressOf(claims.account),
      to: getAddress(claims.recipient),
      value: BigInt(claims.amount),
      validAfter: 0n,
      validBefore: BigInt(claims.deadline),
      nonce: authorizationNonce(option),
    },
  };
}

/** The typed data as `eth_signTypedData_v4` takes it: a JSON string with decimal strings for the integers. */
export function typedDataJson(auth: Authorization): string {
  const m = auth.message;
  return JSON.stringify({
    types: { EIP712Domain: eip712DomainType, ...transferWithAuthorizationTypes },
    primaryType: 'TransferWithAuthorization',
    domain: auth.domain,
    message: {
      from: m.from,
      to: m.to,
      value: m.value.toString(),
      validAfter: m.validAfter.toString(),
      validBefore: m.validBefore.toString(),
      nonce: m.nonce,
    },
  });
}

export async function evmActions(chain: EvmChain, option: VerifiedOption): Promise<Action[]> {
  const { claims } = option;
  const from = addressOf(claims.account);
  if (claims.kind === 'eip3009') {
    const auth = await authorizationOf(chain, option);
    return [
      {
        type: 'walletRpc',
        data: { chain_id: claims.chain, method: 'eth_signTypedData_v4', params: [from, typedDataJson(auth)] },
      },
    ];
  }
  const call = directCall(option);
  return [
    {
      type: 'walletRpc',
      data: {
        chain_id: claims.chain,
        method: 'eth_sendTransaction',
        params: [{ from, to: call.to, data: call.data, value: toHex(call.value) }],
      },
    },
  ];
}
