/** The ways the connected accounts can pay, or why there is none, each with its pay button. */
import { collectDataOf, type PayableOption } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain, Language } from '../../pageConfig.js';
import { formatToken } from '../format.js';
import type { OptionsState } from '../hooks/useOptions.js';
import { chainOfAccount, isGasless } from '../options.js';
import { Monogram } from './Monogram.js';

export function Options(props: {
  state: OptionsState;
  lang: Language;
  t: Translate;
  busy: boolean;
  connected: boolean;
  chains: CheckoutChain[];
  onPay: (option: PayableOption) => void;
  onRefresh: () => void;
}) {
  const { state, t } = props;
  if (!props.connected || state.kind === 'idle') return null;
  if (state.kind === 'loading') return <p class="muted">{t('options.loading')}</p>;
  if (state.kind === 'failed') {
    return (
      <section class="options">
        <p role="alert" class="message">
          {state.message}
        </p>
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      </section>
    );
  }
  // A network whose RPC endpoints all fail lists no option: say so, rather than "no balance" (decisions.md §27.9).
  const unavailable = state.unavailable.length > 0 && (
    <div class="unavailable" data-testid="unavailable-networks">
      <ul>
        {state.unavailable.map((caip2) => (
          <li key={caip2} class="message" data-chain={caip2}>
            {t('options.unavailable', { network: props.chains.find((c) => c.caip2 === caip2)?.name ?? caip2 })}
          </li>
        ))}
      </ul>
      {state.options.length > 0 && (
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      )}
    </div>
  );
  if (state.options.length === 0) {
    return (
      <section class="options" data-testid="no-options" aria-labelledby="none-title">
        <h2 id="none-title">{t('options.none.title')}</h2>
        {unavailable}
        <p>{t('options.none.body')}</p>
        <ul class="accepted">
          {props.chains.flatMap((chain) =>
            chain.assets.map((asset) => (
              <li key={`${chain.caip2}/${asset}`}>{t('options.none.asset', { asset, network: chain.name })}</li>
            )),
          )}
        </ul>
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      </section>
    );
  }
  return (
    <section class="options" aria-labelledby="options-title">
      <h2 id="options-title">{t('options.title')}</h2>
      {unavailable}
      <ul class="option-list">
        {state.options.map((option) => {
          const amount = formatToken(option.amount, props.lang);
          const network = option.amount.display?.networkName ?? chainOfAccount(option.account);
          return (
            <li
              key={option.id}
              class="option"
              data-testid="option"
              data-account={option.account}
              data-option-id={option.id}
            >
              <div class="option-main">
                <Monogram
                  name={option.amount.display?.assetSymbol ?? '?'}
                  icon={option.amount.display?.iconUrl}
                  size="small"
                />
                <div>
                  <p class="option-amount">{amount}</p>
                  <p class="muted">
                    {t('options.network', { network })} · {t('options.eta', { seconds: option.etaS })}
                  </p>
                  <p class="badges">
                    {isGasless(option) && <span class="badge">{t('options.gasless')}</span>}
                    {collectDataOf(option) && <span class="badge info">{t('options.infoRequired')}</span>}
                  </p>
                </div>
              </div>
              <button type="button" disabled={props.busy} onClick={() => props.onPay(option)}>
                {t('options.pay', { amount })}
                <span class="sr-only"> {t('options.network', { network })}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
