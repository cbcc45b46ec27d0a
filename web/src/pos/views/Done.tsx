import { useEffect, useRef } from 'preact/hooks';
import { showFiat } from '../../kit/amounts.js';
import type { PosPayment } from '../api.js';
import { digitsOf } from '../amounts.js';
import type { Outcome } from '../posMachine.js';

const TITLES: Record<Outcome, string> = { paid: 'Paid', expired: 'Expired', failed: 'Failed', cancelled: 'Cancelled' };

/** A large outcome, then back to the keypad (by hand, or after a few seconds once paid). */
export function Done(props: { sale: PosPayment; outcome: Outcome; onNext(): void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const currency = props.sale.amount.unit.slice('iso4217/'.length);
  return (
    <main class={`pos-done pos-${props.outcome}`}>
      <div role="status">
        <h1 ref={heading} tabIndex={-1}>
          {TITLES[props.outcome]}
        </h1>
      </div>
      <p class="pos-done-amount">{showFiat(props.sale.amount.value, currency, digitsOf(currency))}</p>
      <button type="button" class="button" onClick={props.onNext}>
        New sale
      </button>
    </main>
  );
}
