/**
 * Finding the buyer's browser wallets. EVM wallets announce themselves through EIP-6963 (several may be installed;
 * `window.ethereum` is only the fallback, since wallets fight over it); Solana wallets register through the Wallet
 * Standard. Both protocols are events on `window`, so a wallet that loads after the page is still found.
 */
import { getWallets } from '@wallet-standard/app';
import type { Eip1193Provider, SolanaStandardWallet } from '@paygate/sdk-wallet';

export interface EvmWallet {
  kind: 'evm';
  id: string;
  name: string;
  /** A data: URI per EIP-6963, or null for the `window.ethereum` fallback. */
  icon: string | null;
  provider: Eip1193Provider & {
    on?: (event: string, listener: (...args: unknown[]) => void) => void;
    removeListener?: (event: string, listener: (...args: unknown[]) => void) => void;
  };
}

interface StandardWallet extends SolanaStandardWallet {
  readonly name: string;
  readonly icon: string;
  readonly chains: readonly string[];
}

export interface SolanaWallet {
  kind: 'solana';
  id: string;
  name: string;
  icon: string | null;
  wallet: StandardWallet;
}

export type BrowserWallet = EvmWallet | SolanaWallet;

interface Eip6963Detail {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: EvmWallet['provider'];
}

/** Calls `onChange` with every wallet found so far, now and whenever another one appears; answers a stop function. */
export function discoverWallets(onChange: (wallets: BrowserWallet[]) => void): () => void {
  const evm = new Map<string, EvmWallet>();
  const solana = new Map<string, SolanaWallet>();
  const publish = () => onChange([...evm.values(), ...solana.values()]);

  const onAnnounce = (event: Event) => {
    const detail = (event as CustomEvent<Eip6963Detail>).detail;
    if (!detail?.info?.uuid || typeof detail.provider?.request !== 'function') return;
    evm.set(detail.info.uuid, {
      kind: 'evm',
      id: `eip6963:${detail.info.uuid}`,
      name: String(detail.info.name || detail.info.rdns || 'Wallet'),
      icon: safeIcon(detail.info.icon),
      provider: detail.provider,
    });
    evm.delete('injected');
    publish();
  };
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));

  const injected = (window as { ethereum?: EvmWallet['provider'] }).ethereum;
  if (evm.size === 0 && injected && typeof injected.request === 'function') {
    evm.set('injected', { kind: 'evm', id: 'injected', name: 'Browser wallet', icon: null, provider: injected });
  }

  const registry = getWallets();
  const addStandard = (wallets: readonly unknown[]) => {
    for (const candidate of wallets as StandardWallet[]) {
      if (!isSolanaSigner(candidate)) continue;
      solana.set(candidate.name, {
        kind: 'solana',
        id: `standard:${candidate.name}`,
        name: candidate.name,
        icon: safeIcon(candidate.icon),
        wallet: candidate,
      });
    }
    publish();
  };
  addStandard(registry.get());
  const off = registry.on('register', (...wallets) => addStandard(wallets));
  publish();
  return () => {
    window.removeEventListener('eip6963:announceProvider', onAnnounce);
    off();
  };
}

function isSolanaSigner(wallet: StandardWallet): boolean {
  return (
    Array.isArray(wallet.chains) &&
    wallet.chains.some((chain) => chain.startsWith('solana:')) &&
    'standard:connect' in wallet.features &&
    'solana:signTransaction' in wallet.features
  );
}

/** Only data: images: a wallet's icon must not make the page fetch from anywhere (and EIP-6963 requires data URIs). */
function safeIcon(icon: unknown): string | null {
  return typeof icon === 'string' && /^data:image\/(svg\+xml|png|webp|gif|jpeg)[;,]/.test(icon) ? icon : null;
}

/** The accounts of a wallet, asking the buyer's permission (EIP-1193 `eth_requestAccounts`, `standard:connect`). */
export async function connectWallet(wallet: BrowserWallet): Promise<string[]> {
  if (wallet.kind === 'evm') {
    const accounts = await wallet.provider.request({ method: 'eth_requestAccounts' });
    return Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
  }
  const connect = wallet.wallet.features['standard:connect'] as {
    connect(input?: { silent?: boolean }): Promise<{ accounts: readonly { address: string }[] }>;
  };
  const { accounts } = await connect.connect();
  return accounts.map((a) => a.address);
}

/**
 * Follows the buyer's account in the wallet (EIP-1193 `accountsChanged`, the Wallet Standard's `change` event): the
 * new first account, or none when the buyer disconnected the site. Answers the function that stops following.
 */
export function watchAccounts(wallet: BrowserWallet, onAccount: (address: string | null) => void): () => void {
  if (wallet.kind === 'evm') {
    const { provider } = wallet;
    if (typeof provider.on !== 'function') return () => undefined;
    const listener = (accounts: unknown) =>
      onAccount(Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : null);
    provider.on('accountsChanged', listener);
    return () => provider.removeListener?.('accountsChanged', listener);
  }
  const events = wallet.wallet.features['standard:events'] as
    | { on(event: 'change', listener: (change: { accounts?: readonly { address: string }[] }) => void): () => void }
    | undefined;
  if (!events) return () => undefined;
  return events.on('change', (change) => {
    if (change.accounts) onAccount(change.accounts[0]?.address ?? null);
  });
}

export interface ProviderError {
  code?: number;
  message?: string;
}

/**
 * EIP-1193's "user rejected" (4001), wherever a wallet puts it (MetaMask nests it in `data.originalError`), or a
 * Wallet Standard wallet's rejection, which has no code but says so. Errors of the gateway never count.
 */
export function isRejection(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    if ((current as { name?: unknown }).name === 'PaygateError') return false;
    const { code, message } = current as ProviderError;
    if (code === 4001) return true;
    if (
      typeof message === 'string' &&
      /user (rejected|denied|declined|cancel+ed)|rejected by (the )?user/i.test(message)
    ) {
      return true;
    }
    const data = (current as { data?: { originalError?: unknown } }).data;
    current = data?.originalError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Puts the EVM wallet on the option's chain before the SDK checks it: `wallet_switchEthereumChain`, and when the
 * wallet does not know the chain (4902), `wallet_addEthereumChain` with the server's public parameters, then switch.
 */
export async function switchChain(
  provider: Eip1193Provider,
  chainId: number,
  addChain: Record<string, unknown> | null,
): Promise<'switched' | 'already' | 'unknown_chain'> {
  const hex = `0x${chainId.toString(16)}`;
  const current = await provider.request({ method: 'eth_chainId' });
  if (typeof current === 'string' && BigInt(current) === BigInt(chainId)) return 'already';
  try {
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hex }] });
    return 'switched';
  } catch (error) {
    const code = (error as ProviderError).code;
    if (code !== 4902 && !/unrecognized chain|4902/i.test(String((error as ProviderError).message))) throw error;
  }
  if (!addChain) return 'unknown_chain';
  await provider.request({ method: 'wallet_addEthereumChain', params: [addChain] });
  await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hex }] });
  return 'switched';
}
