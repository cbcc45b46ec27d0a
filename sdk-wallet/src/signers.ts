import { PayError } from './errors.js';
import { signSolanaTransaction, solanaSignerProblem, type SolanaSigner } from './solana.js';
import type { WalletRpcAction } from './types.js';

/**
 * An EIP-1193 provider: window.ethereum, a WalletConnect provider, viem's `{ request }`, and so on. It must be on
 * the action's chain already: switching chains is the provider's business, and the SDK only checks `eth_chainId`.
 */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
}

/** The signer of each namespace an option may need; an option needing a namespace without one is refused. */
export interface Signers {
  eip155?: Eip1193Provider;
  solana?: SolanaSigner;
}

export type Namespace = keyof Signers;

/** The wallet RPC methods this SDK performs, and the namespace of each. Any other method is refused, never skipped. */
export const SUPPORTED_METHODS: Readonly<Record<string, Namespace>> = Object.freeze({
  eth_signTypedData_v4: 'eip155',
  eth_sendTransaction: 'eip155',
  solana_signTransaction: 'solana',
});

const EIP155_CHAIN = /^eip155:(\d{1,32})$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The methods that broadcast: after one, the buyer's funds may have moved, so the option cannot be re-signed. */
export function broadcasts(call: WalletRpcAction): boolean {
  return call.method === 'eth_sendTransaction';
}

/**
 * Throws the `PayError` that performing `call` would meet for its method, namespace or signer: everything that can be
 * known without asking the signer, so that a whole option is checked before any of it is signed.
 */
export function checkCall(call: WalletRpcAction, signers: Signers, actionIndex: number): Namespace {
  const namespace = Object.hasOwn(SUPPORTED_METHODS, call.method) ? SUPPORTED_METHODS[call.method] : undefined;
  if (namespace === undefined) {
    throw new PayError(
      'unsupported_method',
      `Action ${actionIndex} asks for ${JSON.stringify(call.method)}, a wallet RPC method this SDK does not perform ` +
        `(it performs ${Object.keys(SUPPORTED_METHODS).join(', ')}); the option cannot be paid with it. Nothing was signed.`,
      { actionIndex },
    );
  }
  if (typeof call.chain_id !== 'string' || !call.chain_id.startsWith(`${namespace}:`)) {
    throw new PayError(
      'unsupported_method',
      `Action ${actionIndex} asks for ${call.method} on ${String(call.chain_id)}, a chain outside ${namespace}.`,
      { actionIndex },
    );
  }
  if (!Array.isArray(call.params)) {
    throw new PayError('invalid_action', `Action ${actionIndex}: params must be an array.`, { actionIndex });
  }
  if (namespace === 'eip155' && !EIP155_CHAIN.test(call.chain_id)) {
    throw new PayError('invalid_action', `Action ${actionIndex}: ${call.chain_id} is not an eip155 chain id.`, {
      actionIndex,
    });
  }
  checkParams(call, actionIndex);
  const signer = signers[namespace];
  if (!signer) {
    throw new PayError(
      'missing_signer',
      `Action ${actionIndex} needs a ${namespace} signer (for ${call.method} on ${call.chain_id}) and none was given; ` +
        'nothing was signed.',
      { actionIndex },
    );
  }
  const problem = namespace === 'solana' ? solanaSignerProblem(signer as SolanaSigner) : evmProviderProblem(signer);
  if (problem !== null) {
    throw new PayError('missing_signer', `Action ${actionIndex}: the ${namespace} signer cannot be used: ${problem}.`, {
      actionIndex,
    });
  }
  return namespace;
}

function evmProviderProblem(provider: unknown): string | null {
  return typeof (provider as Partial<Eip1193Provider>).request === 'function' ? null : 'it has no request method';
}

/**
 * Checks that the provider is on the call's chain, or throws `chain_mismatch`. Called before anything is signed, and
 * again right before each EVM action.
 */
export async function ensureChain(provider: Eip1193Provider, call: WalletRpcAction, actionIndex: number) {
  const expected = BigInt(EIP155_CHAIN.exec(call.chain_id)![1]!);
  const answer = await provider.request({ method: 'eth_chainId' });
  let current: bigint | null = null;
  try {
    if (typeof answer === 'string' || typeof answer === 'number') current = BigInt(answer);
  } catch {
    current = null;
  }
  if (current === null) {
    throw new PayError('invalid_signer_result', `eth_chainId answered ${JSON.stringify(answer)}, not a chain id.`, {
      actionIndex,
    });
  }
  if (current !== expected) {
    throw new PayError(
      'chain_mismatch',
      `Action ${actionIndex} is on ${call.chain_id} but the provider is on eip155:${current}: switch the provider ` +
        `to ${call.chain_id} (e.g. wallet_switchEthereumChain) and pay again. Nothing was signed for this action.`,
      { actionIndex },
    );
  }
}

/**
 * Performs one wallet RPC call with the signer of its namespace and answers its result as confirm takes it: the
 * signature (`eth_signTypedData_v4`), the hash of the sent transaction (`eth_sendTransaction`), or the complete signed
 * transaction in base64 (`solana_signTransaction`, never broadcast). The params are passed exactly as given.
 */
export async function performWalletRpc(
  call: WalletRpcAction,
  signers: Signers,
  options: { actionIndex?: number; signal?: AbortSignal } = {},
): Promise<string> {
  const actionIndex = options.actionIndex ?? 0;
  const namespace = checkCall(call, signers, actionIndex);
  options.signal?.throwIfAborted();
  if (namespace === 'solana') {
    return signSolanaTransaction(call, signers.solana!, actionIndex, options.signal);
  }
  const provider = signers.eip155!;
  await ensureChain(provider, call, actionIndex);
  options.signal?.throwIfAborted();
  const result = await provider.request({ method: call.method, params: call.params });
  const form = call.method === 'eth_signTypedData_v4' ? SIGNATURE : TX_HASH;
  if (typeof result !== 'string' || !form.test(result)) {
    const what = call.method === 'eth_signTypedData_v4' ? 'a 65-byte signature' : 'a transaction hash';
    throw new PayError(
      'invalid_signer_result',
      `Action ${actionIndex}: ${call.method} answered ${short(result)}, not ${what}.`,
      {
        actionIndex,
      },
    );
  }
  return result;
}

/** The contract's forms: `[address, typedDataJson]`, `[{ from, to, data, value }]` and `[{ transaction }]`. */
function checkParams(call: WalletRpcAction, actionIndex: number): void {
  const { params } = call;
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  const ok =
    call.method === 'eth_signTypedData_v4'
      ? params.length === 2 && typeof params[0] === 'string' && typeof params[1] === 'string'
      : call.method === 'eth_sendTransaction'
        ? params.length === 1 && isObject(params[0])
        : params.length === 1 &&
          isObject(params[0]) &&
          typeof (params[0] as { transaction?: unknown }).transaction === 'string';
  if (!ok) {
    throw new PayError('invalid_action', `Action ${actionIndex}: the params of ${call.method} do not have its form.`, {
      actionIndex,
    });
  }
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
