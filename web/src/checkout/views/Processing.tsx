/** The transaction is sent and the gateway waits for it; a confirm that failed after signing is offered again. */
import type { ConfirmPaymentRequest } from '@paygate/sdk-wallet';
import type { Translate } from '../../i18n.js';
import type { CheckoutChain } from '../../pageConfig.js';
import type { View } from '../checkoutMachine.js';
import { Heading } from './Heading.js';
import { TxLink } from './TxLink.js';

export function Processing(props: {
  t: Translate;
  view: Extract<View, { kind: 'processing' }>;
  chains: CheckoutChain[];
  onConfirmAgain: (request: ConfirmPaymentRequest) => void;
}) {
  const { txId, caip2, unconfirmed } = props.view;
  return (
    <section data-view="processing">
      <div class="spinner" aria-hidden="true" />
      <Heading>{props.t('processing.title')}</Heading>
      <p>{props.t('processing.body')}</p>
      {txId && (
        <p>
          {props.t('succeeded.tx')}: <TxLink txId={txId} caip2={caip2} chains={props.chains} />
        </p>
      )}
      {unconfirmed && (
        <>
          <p class="message" role="alert" data-testid="message">
            {unconfirmed.error}
          </p>
          <button type="button" onClick={() => props.onConfirmAgain(unconfirmed.request)}>
            {props.t('confirm.retry')}
          </button>
        </>
      )}
    </section>
  );
}
