/**
 * The wallet side of the browser test's page, bundled for the browser next to the SDK: what a web wallet brings
 * itself. A @solana/kit keypair signer from a secret key, and a hand-rolled EIP-1193 provider over viem's local
 * account (no node, no extension): it answers the chain and account, and signs typed data; nothing else.
 */
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import type { Eip1193Provider } from '@paygate/sdk-wallet';

/** A kit signer from the 64 bytes of a Solana secret key (private half, then public half), through Web Crypto. */
export function solanaSigner(secretKey: number[]): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(new Uint8Array(secretKey));
}

export interface LocalProvider extends Eip1193Provider {
  /** The methods it was asked, in order. */
  calls: string[];
}

const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });

/** An EIP-1193 provider of one private key on one chain, as a browser wallet's injected provider behaves. */
export function evmProvider(privateKey: `0x${string}`, chainId: number): LocalProvider {
  const account = privateKeyToAccount(privateKey);
  const calls: string[] = [];
  return {
    calls,
    async request({ method, params }) {
      calls.push(method);
      switch (method) {
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`;
        case 'eth_accounts':
        case 'eth_requestAccounts':
          return [account.address];
        case 'eth_signTypedData_v4': {
          const [from, json] = params as [string, string];
          if (from.toLowerCase() !== account.address.toLowerCase()) {
            throw rpcError(4100, `The account ${from} is not this wallet's.`);
          }
          const typed = JSON.parse(json) as {
            domain: Record<string, unknown>;
            types: Record<string, { name: string; type: string }[]>;
            primaryType: string;
            message: Record<string, unknown>;
          };
          const { EIP712Domain: _domain, ...types } = typed.types;
          return account.signTypedData({
            domain: typed.domain,
            types,
            primaryType: typed.primaryType,
            message: typed.message,
          });
        }
        default:
          throw rpcError(4200, `${method} is not supported by this wallet.`);
      }
    },
  };
}
