/** The ways the connected accounts can pay, or why there is none, each with its pay button. */
import { collectDataOf, type Amount, type PayableOption } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain, Language } from '../../pageConfig.js';
import { formatClock, formatRate, showToken } from '../format.js';
import type { OptionsState } from '../hooks/useOptions.js';
import { chainOfAccount, isGasless, simplestFirst } from '../options.js';
import { Accepted } from './Accepted.js';
import { TokenIcon } from '../../kit/icons/AssetIcons.js';
import { Monogram } from './Monogram.js';

export function Options(props: {
  state: OptionsState;
  lang: Language;
  t: Translate;
  busy: boolean;
  connected: boolean;
  chains: CheckoutChain[];
  /** The payment's own amount, in fiat: each option's rate is read against it. */
  fiat: Amount;
  /** The option being paid, and what is happening to it (switching network, waiting for the wallet). */
  chosen: string | null;
  progress: string | null;
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
        <Accepted chains={props.chains} t={t} title={t('options.none.body')} />
        <button type="button" class="secondary" onClick={props.onRefresh}>
          {t('options.refresh')}
        </button>
      </section>
    );
  }
  const [first, ...rest] = simplestFirst(state.options);
  return (
    <section class="options" aria-labelledby="options-title">
      <h2 id="options-title">{t('options.title')}</h2>
      {unavailable}
      <ul class="option-list">
        {[first!, ...rest].map((option) => (
          <OptionItem
            key={option.id}
            option={option}
            primary={option === first}
            progress={props.chosen === option.id ? props.progress : null}
            fiat={props.fiat}
            lang={props.lang}
            t={t}
            busy={props.busy}
            onPay={props.onPay}
          />
        ))}
      </ul>
    </section>
  );
}

/**
 * One way to pay: the amount under the display rule (rounded up, the exact amount on demand), the network, the rate
 * and how long the price holds, and its pay button; while it is being paid, its progress.
 */
function OptionItem(props: {
  option: PayableOption;
  /** The one primary action of the view: the simplest option. The others are offered, not pushed. */
  primary: boolean;
  progress: string | null;
  fiat: Amount;
  lang: Language;
  t: Translate;
  busy: boolean;
  onPay: (option: PayableOption) => void;
}) {
  const { option, t } = props;
  const shown = showToken(option.amount, props.lang);
  const network = option.amount.display?.networkName ?? chainOfAccount(option.account);
  const symbol = option.amount.display?.assetSymbol ?? '';
  const rate = formatRate(props.fiat, option.amount, props.lang);
  const held = typeof option.expiresAt === 'number' ? formatClock(option.expiresAt * 1000, props.lang) : null;
  return (
    <li
      class={props.primary ? 'option primary' : 'option'}
      data-testid="option"
      data-account={option.account}
      data-option-id={option.id}
      aria-busy={props.progress !== null}
    >
      <div class="option-main">
        {/* A configured icon on this origin wins; otherwise the one shipped with the app (§26.23). */}
        {option.amount.display?.iconUrl ? (
          <Monogram name={symbol || '?'} icon={option.amount.display.iconUrl} size="small" />
        ) : (
          <TokenIcon symbol={symbol || '?'} network={network} size={28} />
        )}
        <div>
          <p class="option-amount" data-testid="option-amount">
            {shown.text}
          </p>
          <p class="muted">
            {t('options.network', { network })} · {t('options.eta', { seconds: option.etaS })}
          </p>
          {(rate || held) && (
            <p class="muted quote">
              {rate && t('options.rate', { asset: symbol, rate })}
              {rate && held && ' · '}
              {held && t('options.quoteHeld', { time: held })}
            </p>
          )}
          {!shown.exact && (
            <details class="exact">
              <summary>{t('options.exact')}</summary>
              <code data-testid="option-exact">{shown.full}</code>
            </details>
          )}
          <p class="badges">
            {isGasless(option) && <span class="badge">{t('options.gasless')}</span>}
            {collectDataOf(option) && <span class="badge info">{t('options.infoRequired')}</span>}
          </p>
        </div>
      </div>
      {props.progress && (
        <p class="busy" data-testid="busy">
          {props.progress}
        </p>
      )}
      <button
        type="button"
        class={props.primary ? undefined : 'secondary'}
        disabled={props.busy}
        onClick={() => props.onPay(option)}
      >
        {t('options.pay', { amount: shown.text })}
        <span class="visually-hidden"> {t('options.network', { network })}</span>
      </button>
    </li>
  );
}
