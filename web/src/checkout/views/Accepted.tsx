import type { Translate } from '../../i18n.js';
import type { CheckoutChain } from '../../pageConfig.js';
import { TokenIcon } from '../../kit/icons/AssetIcons.js';

/** What the payment can be paid with, token by network: what a buyer needs to know before connecting anything. */
export function Accepted(props: { chains: CheckoutChain[]; t: Translate; title: string }) {
  const { t } = props;
  return (
    <>
      <h2 id="accepted-title" class="small-title">
        {props.title}
      </h2>
      <ul class="accepted" aria-labelledby="accepted-title">
        {props.chains.flatMap((chain) =>
          chain.assets.map((asset) => (
            <li key={`${chain.caip2}/${asset}`}>
              <TokenIcon symbol={asset} network={chain.name} size={18} />
              {t('options.none.asset', { asset, network: chain.name })}
            </li>
          )),
        )}
      </ul>
    </>
  );
}
