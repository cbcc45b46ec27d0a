/**
 * The ABI fragments the gateway calls on any chain: ERC-20 and EIP-3009 as Circle's FiatToken v2 implements them
 * (the `v, r, s` form, which every EIP-3009 token has), and Multicall3's balance getter. Written from the standards,
 * so the gateway never depends on the local test token's ABI.
 */
import { parseAbi } from 'viem';

export const erc20Abi = parseAbi([
  'function balanceOf(address owner) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
]);

export const eip3009Abi = parseAbi([
  'function version() view returns (string)',
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

export const multicall3BalanceAbi = parseAbi(['function getEthBalance(address addr) view returns (uint256 balance)']);
