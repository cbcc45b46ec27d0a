/** The browser wallets found, grouped by kind, each with its connect button or the account it connected. */
import type { Translate } from '../../i18n.js';
import { shorten } from '../format.js';
import type { Connected } from '../hooks/useWallets.js';
import type { BrowserWallet } from '../wallets.js';
import { Monogram } from './Monogram.js';

export function Wallets(props: {
  wallets: BrowserWallet[];
  connected: Connected[];
  onConnect: (wallet: BrowserWallet) => void;
  t: Translate;
  busy: boolean;
}) {
  const { t } = props;
  const groups: [string, BrowserWallet[]][] = [
    [t('wallets.evm'), props.wallets.filter((w) => w.kind === 'evm')],
    [t('wallets.solana'), props.wallets.filter((w) => w.kind === 'solana')],
  ];
  return (
    <section aria-labelledby="wallets-title" class="wallets">
      <h2 id="wallets-title">{t('wallets.title')}</h2>
      {props.wallets.length === 0 && <p class="muted">{t('wallets.none')}</p>}
      {groups
        .filter(([, list]) => list.length > 0)
        .map(([title, list]) => (
          <div key={title}>
            <h3>{title}</h3>
            <ul class="wallet-list">
              {list.map((wallet) => {
                const account = props.connected.find((c) => c.wallet.id === wallet.id);
                return (
                  <li key={wallet.id}>
                    {account ? (
                      <p class="connected">
                        <Monogram name={wallet.name} icon={wallet.icon} size="small" />
                        {t('wallets.connected', { wallet: wallet.name, account: shorten(account.address) })}
                      </p>
                    ) : (
                      <button
                        type="button"
                        class="secondary wallet"
                        disabled={props.busy}
                        onClick={() => props.onConnect(wallet)}
                      >
                        <Monogram name={wallet.name} icon={wallet.icon} size="small" />
                        {t('wallets.connect', { wallet: wallet.name })}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
    </section>
  );
}
