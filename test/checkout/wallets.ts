/**
 * Wallets for browser tests of the hosted checkout, injected into every page of a playwright context (or one page)
 * the way browser extensions inject theirs: an EVM wallet announced through EIP-6963 (and, when asked, as
 * `window.ethereum`), and a Solana wallet registered through the Wallet Standard's window events. The in-page objects
 * only forward; the keys, the state (connected, current chain) and every answer live in Node: signatures are made with
 * the test's own keys (viem, @solana/kit) and every read and send goes to the real local chains.
 *
 * Install a wallet before the page navigates: the in-page part is an init script, which runs before any page script.
 */
import { randomUUID } from 'node:crypto';
import {
  createSolanaRpc,
  getAddressEncoder,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  getTransactionEncoder,
  signBytes,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  isHex,
  RpcRequestError,
  type Address,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import type { BrowserContext, Page } from 'playwright-core';

/** Where a wallet is installed: every page of a context, as an extension is, or a single page. */
export type WalletTarget = BrowserContext | Page;

/** How an answer crosses the binding: a rejection thrown in a binding would reach the page as a bare message. */
type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

class WalletError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const USER_REJECTED = 'User rejected the request.';

function svgIcon(letter: string, colour: string): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">` +
    `<rect width="96" height="96" rx="20" fill="${colour}"/>` +
    `<text x="48" y="64" font-family="sans-serif" font-size="48" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/**
 * Adds `page(config)` as an init script. tsx compiles this file with esbuild's keepNames, which wraps named inner
 * functions in a `__name` helper that exists in Node only; the page gets a no-op one so the function can stay typed.
 */
async function addPageScript<C>(target: WalletTarget, page: (config: C) => void, config: C): Promise<void> {
  await target.addInitScript({
    content: `(() => { const __name = (f) => f; (${page.toString()})(${JSON.stringify(config)}); })();`,
  });
}

/** Runs the page half's event emitter in every frame that has one; frames without a wallet (or going away) are skipped. */
async function emitInPages(target: WalletTarget, emitter: string, event: string, data: unknown): Promise<void> {
  const pages = 'pages' in target ? target.pages() : [target];
  await Promise.all(
    pages.flatMap((p) =>
      p.frames().map((frame) =>
        frame
          .evaluate(
            ([key, name, payload]) => {
              const emit = (window as unknown as Record<string, unknown>)[key as string];
              if (typeof emit === 'function') emit(name, payload);
            },
            [emitter, event, data] as const,
          )
          .catch(() => undefined),
      ),
    ),
  );
}

/** A request the test holds open: the wallet "shows its prompt" until the test answers for the user. */
export interface HeldRequest {
  /** Resolves with the method (or feature) once the page has made the held request. */
  readonly asked: Promise<string>;
  approve(): void;
  /** Refuses it as the user would: 4001, "User rejected the request.". */
  reject(): void;
}

/**
 * The user's answers to prompts the test decided beforehand. With no method, an entry applies to the next signing
 * request; with one, to the next request of that method, whatever it is (a connection, a chain switch).
 */
function userAnswers(signing: ReadonlySet<string>) {
  type Entry = { method: string | null; decision: Promise<boolean> | null; asked?: (method: string) => void };
  const pending: Entry[] = [];
  return {
    rejectNext: (method?: string) => void pending.push({ method: method ?? null, decision: null }),
    holdNext(method?: string): HeldRequest {
      let decide!: (approved: boolean) => void;
      let asked!: (method: string) => void;
      const decision = new Promise<boolean>((resolve) => (decide = resolve));
      const askedPromise = new Promise<string>((resolve) => (asked = resolve));
      pending.push({ method: method ?? null, decision, asked });
      return { asked: askedPromise, approve: () => decide(true), reject: () => decide(false) };
    },
    /** Whether the user approves this request: at once unless a test entry matches it. */
    async approves(method: string): Promise<boolean> {
      const i = pending.findIndex((p) => (p.method === null ? signing.has(method) : p.method === method));
      if (i < 0) return true;
      const [entry] = pending.splice(i, 1);
      if (entry!.decision === null) return false;
      entry!.asked!(method);
      return entry!.decision;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// EVM

export interface EvmWalletOptions {
  /** The buyer's key: every signature is made with it. */
  account: PrivateKeyAccount;
  /** Every chain the wallet can reach, by chain id: the only chains `wallet_addEthereumChain` can add. */
  rpcUrls: Readonly<Record<number, string>>;
  /** The chain the wallet is on when the page opens. */
  chainId: number;
  /** Chains the wallet already has (a switch to any other answers 4902); default: `[chainId]`. */
  addedChains?: readonly number[];
  /** Whether the page is already authorised, so `eth_accounts` answers the account at once; default false. */
  connected?: boolean;
  /** EIP-6963 `info`; defaults: "Test EVM Wallet", `org.paygate.testwallet`, an SVG. */
  name?: string;
  rdns?: string;
  icon?: string;
  /** Announce through EIP-6963; default true (false leaves only `window.ethereum`, for the fallback). */
  announce?: boolean;
  /** Also set `window.ethereum`; default false. */
  injectWindowEthereum?: boolean;
}

export interface EvmProviderInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

export interface EvmWallet {
  readonly account: PrivateKeyAccount;
  readonly address: Address;
  /** The chain the wallet is on now. */
  readonly chainId: number;
  readonly connected: boolean;
  readonly info: EvmProviderInfo;
  /** Every method the page asked, in order. */
  readonly calls: string[];
  /** Every request, with its params as the page sent them. */
  readonly requests: { method: string; params: unknown }[];
  /** The next signing request (or the next request of `method`) is refused with 4001. */
  rejectNext(method?: string): void;
  /** The next signing request (or the next request of `method`) waits until the test approves or rejects it. */
  holdNext(method?: string): HeldRequest;
  /** The user switches chains in the wallet: adds the chain if needed (it must be in `rpcUrls`), emits chainChanged. */
  setChain(chainId: number): Promise<void>;
  /** The user disconnects the site: `eth_accounts` answers [] and accountsChanged([]) is emitted. */
  revokeAccounts(): Promise<void>;
  /** Emits an EIP-1193 event into every page: `disconnect` takes `{code, message}` and becomes a ProviderRpcError. */
  emit(event: 'accountsChanged' | 'chainChanged' | 'connect' | 'disconnect', data: unknown): Promise<void>;
}

interface EvmPageConfig {
  binding: string;
  emitter: string;
  info: EvmProviderInfo;
  announce: boolean;
  injectWindowEthereum: boolean;
}

/** The in-page provider: it holds no state but its listeners, and forwards every request to Node. */
function evmPage(config: EvmPageConfig): void {
  const w = window as unknown as Record<string, unknown>;
  class ProviderRpcError extends Error {
    code: number;
    data?: unknown;
    constructor(code: number, message: string, data?: unknown) {
      super(message);
      this.name = 'ProviderRpcError';
      this.code = code;
      if (data !== undefined) this.data = data;
    }
  }
  const listeners = new Map<string, Set<(arg: unknown) => void>>();
  const provider = {
    async request(args: { method: string; params?: unknown }): Promise<unknown> {
      if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
        throw new ProviderRpcError(-32600, 'request takes { method, params }.');
      }
      const call = w[config.binding] as (request: { method: string; params: unknown }) => Promise<Answer>;
      const answer = await call({ method: args.method, params: args.params ?? [] });
      if ('error' in answer) throw new ProviderRpcError(answer.error.code, answer.error.message, answer.error.data);
      return answer.result;
    },
    on(event: string, listener: (arg: unknown) => void) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return provider;
    },
    removeListener(event: string, listener: (arg: unknown) => void) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };
  Object.defineProperty(window, config.emitter, {
    value: (event: string, data: unknown) => {
      const arg =
        event === 'disconnect'
          ? new ProviderRpcError((data as { code: number }).code, (data as { message: string }).message)
          : data;
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          listener(arg);
        } catch (error) {
          console.error(error);
        }
      }
    },
  });
  if (config.injectWindowEthereum) {
    Object.defineProperty(window, 'ethereum', { value: provider, configurable: true, writable: true });
  }
  if (config.announce) {
    const detail = Object.freeze({ info: Object.freeze({ ...config.info }), provider });
    const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  }
}

const EVM_SIGNING = new Set(['personal_sign', 'eth_signTypedData_v4', 'eth_sendTransaction']);
/** Methods a wallet signs with its key or answers from its own state: never passed to a node. */
const EVM_NOT_FORWARDED = /^(eth_sign|eth_signTransaction|eth_signTypedData(_v1|_v3)?|eth_coinbase)$/;

type TypedDataJson = {
  domain?: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
};

const hexChain = (id: number) => `0x${id.toString(16)}`;

function chainIdOf(value: unknown): number {
  if ((typeof value === 'string' && /^(0x[0-9a-fA-F]+|\d+)$/.test(value)) || typeof value === 'number') {
    return Number(BigInt(value));
  }
  throw new WalletError(-32602, `Invalid chain id ${JSON.stringify(value)}.`);
}

function quantity(value: unknown): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number') return BigInt(value);
  throw new WalletError(-32602, `Invalid quantity ${JSON.stringify(value)}.`);
}

/** The node's own error, as a wallet relays it (e.g. an eth_call revert with its data). */
function rpcFailure(error: unknown): WalletError {
  if (error instanceof WalletError) return error;
  if (error instanceof BaseError) {
    const node = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
    if (node) return new WalletError(node.code, node.details, node.data);
    const coded = error.walk((e) => typeof (e as { code?: unknown }).code === 'number') as
      (BaseError & { code: number }) | null;
    return new WalletError(coded?.code ?? -32603, error.shortMessage);
  }
  return new WalletError(-32603, error instanceof Error ? error.message : String(error));
}

export async function installEvmWallet(target: WalletTarget, opts: EvmWalletOptions): Promise<EvmWallet> {
  const { account } = opts;
  const address = account.address;
  const known = new Map(Object.entries(opts.rpcUrls).map(([id, url]) => [Number(id), url]));
  if (!known.has(opts.chainId)) throw new Error(`installEvmWallet: chain ${opts.chainId} is not in rpcUrls.`);
  const added = new Set(opts.addedChains ?? [opts.chainId]);
  added.add(opts.chainId);
  let chainId = opts.chainId;
  let connected = opts.connected ?? false;
  const calls: string[] = [];
  const requests: { method: string; params: unknown }[] = [];
  const user = userAnswers(EVM_SIGNING);
  const info: EvmProviderInfo = {
    uuid: randomUUID(),
    name: opts.name ?? 'Test EVM Wallet',
    icon: opts.icon ?? svgIcon('E', '#3c3c9c'),
    rdns: opts.rdns ?? 'org.paygate.testwallet',
  };
  const id = randomUUID().replaceAll('-', '');
  const binding = `__paygateEvmWallet_${id}`;
  const emitter = `__paygateEvmWalletEmit_${id}`;
  const emit: EvmWallet['emit'] = (event, data) => emitInPages(target, emitter, event, data);

  const clients = new Map<number, PublicClient>();
  const chainOf = (id: number) =>
    defineChain({
      id,
      name: `Chain ${id}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [known.get(id)!] } },
    });
  const reader = (id: number): PublicClient => {
    let client = clients.get(id);
    if (!client) {
      client = createPublicClient({ chain: chainOf(id), transport: http(known.get(id), { retryCount: 0 }) });
      clients.set(id, client);
    }
    return client;
  };

  const switchTo = async (next: number) => {
    if (next === chainId) return;
    chainId = next;
    await emit('chainChanged', hexChain(next));
  };

  const mine = (from: unknown) => {
    if (typeof from !== 'string' || !isHex(from) || getAddress(from) !== address) {
      throw new WalletError(4100, `The wallet does not hold ${String(from)}.`);
    }
    if (!connected) {
      throw new WalletError(4100, 'The requested account and/or method has not been authorized by the user.');
    }
  };

  async function handle(method: string, params: unknown): Promise<unknown> {
    const args = Array.isArray(params) ? (params as unknown[]) : [];
    if (!(await user.approves(method))) throw new WalletError(4001, USER_REJECTED);
    switch (method) {
      case 'eth_accounts':
        return connected ? [address] : [];
      case 'eth_requestAccounts':
        if (!connected) {
          connected = true;
          await emit('accountsChanged', [address]);
        }
        return [address];
      case 'eth_chainId':
        return hexChain(chainId);
      case 'net_version':
        return String(chainId);
      case 'wallet_switchEthereumChain': {
        const next = chainIdOf((args[0] as { chainId?: unknown } | undefined)?.chainId);
        if (!added.has(next)) {
          throw new WalletError(
            4902,
            `Unrecognized chain ID "${hexChain(next)}". Try adding the chain using wallet_addEthereumChain first.`,
          );
        }
        await switchTo(next);
        return null;
      }
      case 'wallet_addEthereumChain': {
        const next = chainIdOf((args[0] as { chainId?: unknown } | undefined)?.chainId);
        if (!known.has(next)) {
          throw new WalletError(-32602, `This test wallet cannot reach chain ${next} (it knows ${[...known.keys()]}).`);
        }
        // As wallets do: the chain's node must say it is that chain before it is added.
        const reported = await reader(next)
          .getChainId()
          .catch((e: unknown) => {
            throw rpcFailure(e);
          });
        if (reported !== next) {
          throw new WalletError(-32602, `The RPC of chain ${next} answers chain id ${reported}.`);
        }
        added.add(next);
        await switchTo(next);
        return null;
      }
      case 'personal_sign': {
        const [message, from] = args;
        mine(from);
        if (typeof message !== 'string') throw new WalletError(-32602, 'personal_sign takes [message, address].');
        return account.signMessage({ message: isHex(message) ? { raw: message } : message });
      }
      case 'eth_signTypedData_v4': {
        mine(args[0]);
        const typed = (typeof args[1] === 'string' ? JSON.parse(args[1]) : args[1]) as TypedDataJson;
        const domainChain = typed.domain?.chainId;
        if (domainChain !== undefined && chainIdOf(domainChain) !== chainId) {
          throw new WalletError(
            -32602,
            `Provided chainId "${chainIdOf(domainChain)}" must match the active chainId "${chainId}"`,
          );
        }
        // The wallet derives EIP712Domain from the domain itself, as viem does.
        const { EIP712Domain: _domain, ...types } = typed.types;
        return account.signTypedData({
          domain: typed.domain ?? {},
          types,
          primaryType: typed.primaryType,
          message: typed.message,
        });
      }
      case 'eth_sendTransaction': {
        const tx = (args[0] ?? {}) as Record<string, unknown>;
        mine(tx.from ?? address);
        if (tx.chainId !== undefined && chainIdOf(tx.chainId) !== chainId) {
          throw new WalletError(-32602, `The transaction is for chain ${chainIdOf(tx.chainId)}, not ${chainId}.`);
        }
        const wallet = createWalletClient({
          account,
          chain: chainOf(chainId),
          transport: http(known.get(chainId), { retryCount: 0 }),
        });
        const nonce = quantity(tx.nonce);
        return wallet.sendTransaction({
          to: (tx.to ?? undefined) as Address | undefined,
          data: (tx.data ?? tx.input) as Hex | undefined,
          value: quantity(tx.value),
          gas: quantity(tx.gas),
          nonce: nonce === undefined ? undefined : Number(nonce),
          ...(tx.gasPrice !== undefined
            ? { gasPrice: quantity(tx.gasPrice) }
            : { maxFeePerGas: quantity(tx.maxFeePerGas), maxPriorityFeePerGas: quantity(tx.maxPriorityFeePerGas) }),
        } as Parameters<typeof wallet.sendTransaction>[0]);
      }
      default:
        if (EVM_NOT_FORWARDED.test(method) || !/^(eth|net|web3)_/.test(method)) {
          throw new WalletError(4200, `The wallet does not support ${method}.`);
        }
        return reader(chainId).request({ method, params: args } as never);
    }
  }

  await target.exposeBinding(binding, async (_source, request: { method: string; params: unknown }) => {
    calls.push(request.method);
    requests.push({ method: request.method, params: request.params });
    try {
      return { result: (await handle(request.method, request.params)) ?? null } satisfies Answer;
    } catch (error) {
      const { code, message, data } = rpcFailure(error);
      return { error: data === undefined ? { code, message } : { code, message, data } } satisfies Answer;
    }
  });
  await addPageScript(target, evmPage, {
    binding,
    emitter,
    info,
    announce: opts.announce ?? true,
    injectWindowEthereum: opts.injectWindowEthereum ?? false,
  });

  return {
    account,
    address,
    get chainId() {
      return chainId;
    },
    get connected() {
      return connected;
    },
    info,
    calls,
    requests,
    rejectNext: user.rejectNext,
    holdNext: user.holdNext,
    async setChain(next) {
      if (!known.has(next)) throw new Error(`setChain: chain ${next} is not in rpcUrls.`);
      added.add(next);
      await switchTo(next);
    },
    async revokeAccounts() {
      connected = false;
      await emit('accountsChanged', []);
    },
    emit,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Solana

export type SolanaChainId = `solana:${string}`;

export interface SolanaWalletOptions {
  /** The buyer's key pair: it signs every transaction. */
  signer: KeyPairSigner;
  /** Where `solana:signAndSendTransaction` sends (the local chain's JSON-RPC URL). */
  rpcUrl: string;
  /** The local chain's CAIP-2 id (`solana:` + the genesis hash prefix). */
  chain: SolanaChainId;
  /** The chains the wallet declares; default: `[chain, 'solana:localnet']`. */
  chains?: readonly SolanaChainId[];
  /** Whether the page is already trusted, so a silent connect answers the account; default false. */
  authorized?: boolean;
  name?: string;
  icon?: string;
}

export interface SolanaWallet {
  readonly signer: KeyPairSigner;
  readonly address: string;
  readonly name: string;
  readonly chains: readonly SolanaChainId[];
  readonly authorized: boolean;
  /** Every feature the page used (`standard:connect`, `solana:signTransaction`, ...), in order. */
  readonly calls: string[];
  /** The next sign (or the next use of `feature`, e.g. `standard:connect`) rejects with "User rejected the request.". */
  rejectNext(feature?: string): void;
  /** The next sign (or the next use of `feature`) waits until the test approves or rejects it. */
  holdNext(feature?: string): HeldRequest;
  /** The user disconnects the site in the wallet: accounts become [] and `change` is emitted in every page. */
  disconnect(): Promise<void>;
}

interface SolanaPageConfig {
  binding: string;
  emitter: string;
  name: string;
  icon: string;
  chains: readonly string[];
  address: string;
  /** base64: a Uint8Array cannot cross into an init script's JSON. */
  publicKey: string;
}

type SolanaRequest =
  | { feature: 'standard:connect'; silent: boolean }
  | { feature: 'standard:disconnect' }
  | {
      feature: 'solana:signTransaction' | 'solana:signAndSendTransaction';
      inputs: { address: string; transaction: string; chain?: string; options?: Record<string, unknown> }[];
    };

/** The in-page Wallet Standard wallet; `accounts` is per page, the trust (`authorized`) is the wallet's, in Node. */
function solanaPage(config: SolanaPageConfig): void {
  const w = window as unknown as Record<string, unknown>;
  const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const toBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
  const features = ['solana:signTransaction', 'solana:signAndSendTransaction'] as const;
  const account = Object.freeze({
    address: config.address,
    publicKey: fromBase64(config.publicKey),
    chains: Object.freeze([...config.chains]),
    features: Object.freeze([...features]),
  });
  let accounts: readonly (typeof account)[] = Object.freeze([]);
  const listeners = new Set<(properties: { accounts: typeof accounts }) => void>();
  const setAccounts = (next: readonly (typeof account)[]) => {
    accounts = Object.freeze([...next]);
    for (const listener of [...listeners]) {
      try {
        listener({ accounts });
      } catch (error) {
        console.error(error);
      }
    }
  };
  const ask = async (request: SolanaRequest): Promise<unknown> => {
    const call = w[config.binding] as (request: SolanaRequest) => Promise<Answer>;
    const answer = await call(request);
    if ('error' in answer) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
    return answer.result;
  };
  type Input = { account: { address: string }; transaction: Uint8Array; chain?: string; options?: object };
  const forward = (inputs: Input[]) =>
    inputs.map((input) => {
      if (!accounts.some((a) => a.address === input.account?.address)) {
        throw new Error(`The account ${input.account?.address} is not connected.`);
      }
      if (!(input.transaction instanceof Uint8Array)) throw new Error('transaction must be a Uint8Array.');
      return {
        address: input.account.address,
        transaction: toBase64(input.transaction),
        ...(input.chain === undefined ? {} : { chain: input.chain }),
        ...(input.options === undefined ? {} : { options: { ...input.options } }),
      };
    });
  const wallet = {
    version: '1.0.0' as const,
    name: config.name,
    icon: config.icon,
    chains: Object.freeze([...config.chains]),
    get accounts() {
      return accounts;
    },
    features: Object.freeze({
      'standard:connect': Object.freeze({
        version: '1.0.0',
        connect: async (input?: { silent?: boolean }) => {
          const trusted = await ask({ feature: 'standard:connect', silent: input?.silent === true });
          if (trusted === true && accounts.length === 0) setAccounts([account]);
          return { accounts };
        },
      }),
      'standard:disconnect': Object.freeze({
        version: '1.0.0',
        disconnect: async () => {
          await ask({ feature: 'standard:disconnect' });
          if (accounts.length > 0) setAccounts([]);
        },
      }),
      'standard:events': Object.freeze({
        version: '1.0.0',
        on: (event: string, listener: (properties: { accounts: typeof accounts }) => void) => {
          if (event !== 'change') return () => undefined;
          listeners.add(listener);
          return () => void listeners.delete(listener);
        },
      }),
      'solana:signTransaction': Object.freeze({
        version: '1.0.0',
        supportedTransactionVersions: Object.freeze(['legacy', 0]),
        signTransaction: async (...inputs: Input[]) => {
          const signed = (await ask({ feature: 'solana:signTransaction', inputs: forward(inputs) })) as string[];
          return signed.map((s) => ({ signedTransaction: fromBase64(s) }));
        },
      }),
      'solana:signAndSendTransaction': Object.freeze({
        version: '1.0.0',
        supportedTransactionVersions: Object.freeze(['legacy', 0]),
        signAndSendTransaction: async (...inputs: Input[]) => {
          const sent = (await ask({ feature: 'solana:signAndSendTransaction', inputs: forward(inputs) })) as string[];
          return sent.map((s) => ({ signature: fromBase64(s) }));
        },
      }),
    }),
  };
  Object.defineProperty(window, config.emitter, {
    value: (event: string) => {
      if (event === 'disconnected' && accounts.length > 0) setAccounts([]);
    },
  });
  // The Wallet Standard's registration: announce to an app that already listens, and answer one that comes later.
  const callback = (api: { register(...wallets: unknown[]): unknown }) => api.register(wallet);
  window.dispatchEvent(new CustomEvent('wallet-standard:register-wallet', { detail: callback }));
  window.addEventListener('wallet-standard:app-ready', (event) =>
    callback((event as CustomEvent<Parameters<typeof callback>[0]>).detail),
  );
}

const SOLANA_SIGNING = new Set(['solana:signTransaction', 'solana:signAndSendTransaction']);

export async function installSolanaWallet(target: WalletTarget, opts: SolanaWalletOptions): Promise<SolanaWallet> {
  const { signer } = opts;
  const address = signer.address;
  const chains = opts.chains ?? [opts.chain, 'solana:localnet'];
  const name = opts.name ?? 'Test Solana Wallet';
  const rpc = createSolanaRpc(opts.rpcUrl);
  let authorized = opts.authorized ?? false;
  const calls: string[] = [];
  const user = userAnswers(SOLANA_SIGNING);
  const id = randomUUID().replaceAll('-', '');
  const binding = `__paygateSolanaWallet_${id}`;
  const emitter = `__paygateSolanaWalletEmit_${id}`;

  /** Signs the buyer's slot of the wire transaction; every other slot stays as it came. */
  const sign = async (input: { address: string; transaction: string; chain?: string }): Promise<Transaction> => {
    if (input.address !== address) throw new Error(`The wallet does not hold ${input.address}.`);
    if (input.chain !== undefined && !chains.includes(input.chain as SolanaChainId)) {
      throw new Error(`The wallet does not support the chain ${input.chain}.`);
    }
    let transaction: Transaction;
    try {
      transaction = getTransactionDecoder().decode(Buffer.from(input.transaction, 'base64'));
    } catch {
      throw new Error('The transaction cannot be decoded.');
    }
    if (!Object.hasOwn(transaction.signatures, address)) {
      throw new Error(`${address} is not a signer of this transaction.`);
    }
    const signature = await signBytes(signer.keyPair.privateKey, transaction.messageBytes);
    return { ...transaction, signatures: { ...transaction.signatures, [address]: signature } } as Transaction;
  };

  async function handle(request: SolanaRequest): Promise<unknown> {
    if (request.feature === 'standard:connect') {
      if (request.silent) return authorized;
      if (!(await user.approves(request.feature))) throw new WalletError(4001, USER_REJECTED);
      authorized = true;
      return true;
    }
    if (request.feature === 'standard:disconnect') {
      authorized = false;
      return null;
    }
    if (!authorized) throw new WalletError(4100, 'The wallet is not connected to this site.');
    if (!(await user.approves(request.feature))) throw new WalletError(4001, USER_REJECTED);
    const signed = await Promise.all(request.inputs.map(sign));
    if (request.feature === 'solana:signTransaction') {
      return signed.map((t) => Buffer.from(getTransactionEncoder().encode(t)).toString('base64'));
    }
    const sent: string[] = [];
    for (const [i, transaction] of signed.entries()) {
      const options = (request.inputs[i]!.options ?? {}) as {
        skipPreflight?: boolean;
        preflightCommitment?: 'processed' | 'confirmed' | 'finalized';
        maxRetries?: number;
      };
      const signature = await rpc
        .sendTransaction(getBase64EncodedWireTransaction(transaction), {
          encoding: 'base64',
          skipPreflight: options.skipPreflight ?? false,
          preflightCommitment: options.preflightCommitment ?? 'confirmed',
          ...(options.maxRetries === undefined ? {} : { maxRetries: BigInt(options.maxRetries) }),
        })
        .send();
      sent.push(Buffer.from(getBase58Encoder().encode(signature)).toString('base64'));
    }
    return sent;
  }

  await target.exposeBinding(binding, async (_source, request: SolanaRequest) => {
    calls.push(request.feature);
    try {
      return { result: (await handle(request)) ?? null } satisfies Answer;
    } catch (error) {
      const code = error instanceof WalletError ? error.code : -32603;
      return { error: { code, message: error instanceof Error ? error.message : String(error) } } satisfies Answer;
    }
  });
  await addPageScript(target, solanaPage, {
    binding,
    emitter,
    name,
    icon: opts.icon ?? svgIcon('S', '#14a37f'),
    chains,
    address,
    publicKey: Buffer.from(getAddressEncoder().encode(address)).toString('base64'),
  });

  return {
    signer,
    address,
    name,
    chains,
    get authorized() {
      return authorized;
    },
    calls,
    rejectNext: user.rejectNext,
    holdNext: user.holdNext,
    async disconnect() {
      authorized = false;
      await emitInPages(target, emitter, 'disconnected', null);
    },
  };
}
