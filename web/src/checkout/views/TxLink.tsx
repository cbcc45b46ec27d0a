import type { CheckoutChain } from '../../pageConfig.js';
import { shorten } from '../format.js';
import { explorerLink } from '../links.js';

/** A transaction, shortened: a link to the chain's explorer when it has one. */
export function TxLink(props: { txId: string; caip2: string | null; chains: CheckoutChain[] }) {
  const href = props.caip2 ? explorerLink(props.chains, props.caip2, props.txId) : null;
  const text = shorten(props.txId);
  return href ? (
    <a href={href} rel="noopener noreferrer" target="_blank" data-testid="tx-link" title={props.txId}>
      {text}
    </a>
  ) : (
    <code data-testid="tx-id" title={props.txId}>
      {text}
    </code>
  );
}
