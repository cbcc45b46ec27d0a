/**
 * The browser wallets the page found (EIP-6963 and the Wallet Standard) and the ones the buyer connected, following
 * account switches and disconnections made in the wallet.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain } from '../../pageConfig.js';
import { reasonOf } from '../failures.js';
import { shorten } from '../format.js';
import { connectWallet, discoverWallets, watchAccounts, type BrowserWallet } from '../wallets.js';

export interface Connected {
  wallet: BrowserWallet;
  address: string;
}

export function useWallets(
  chains: CheckoutChain[],
  t: Translate,
  announce: (text: string) => void,
  setMessage: (text: string | null) => void,
) {
  const [wallets, setWallets] = useState<BrowserWallet[]>([]);
  const [connected, setConnected] = useState<Connected[]>([]);

  useEffect(() => discoverWallets(setWallets), []);

  // The buyer may switch accounts or disconnect the site in the wallet: the options follow.
  const connectedIds = connected.map((c) => c.wallet.id).join(',');
  useEffect(() => {
    const stops = connected.map(({ wallet }) =>
      watchAccounts(wallet, (address) =>
        setConnected((current) =>
          address === null
            ? current.filter((c) => c.wallet.id !== wallet.id)
            : current.map((c) => (c.wallet.id === wallet.id ? { wallet, address } : c)),
        ),
      ),
    );
    return () => stops.forEach((stop) => stop());
    // Subscriptions follow the set of connected wallets (connectedIds), not each address change.
  }, [connectedIds]);

  /** Every CAIP-10 account the connected wallets hold on the payment's chains (at most 50, the gateway's limit). */
  const accounts = useMemo(() => {
    const list: string[] = [];
    for (const { wallet, address } of connected) {
      const namespace = wallet.kind === 'evm' ? 'eip155:' : 'solana:';
      for (const chain of chains) if (chain.caip2.startsWith(namespace)) list.push(`${chain.caip2}:${address}`);
    }
    return [...new Set(list)].slice(0, 50);
  }, [connected, chains]);

  const connect = async (wallet: BrowserWallet) => {
    setMessage(null);
    try {
      const addresses = await connectWallet(wallet);
      setConnected((current) => [
        ...current.filter((c) => c.wallet.id !== wallet.id),
        ...addresses.slice(0, 1).map((address) => ({ wallet, address })),
      ]);
      if (addresses[0]) announce(t('wallets.connected', { wallet: wallet.name, account: shorten(addresses[0]) }));
    } catch (error) {
      setMessage(t('wallets.connectFailed', { wallet: wallet.name, reason: reasonOf(error) }));
    }
  };

  return { wallets, connected, accounts, connect };
}
