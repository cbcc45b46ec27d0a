import { useState } from 'preact/hooks';
import { showFiat } from '../../kit/amounts.js';
import type { PosTerminal, SaleRequest } from '../api.js';
import { backspace, digitsOf, pressDigit, tipOf } from '../amounts.js';

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '00', '0'];

/** Ringing up: a keypad amount or catalogue items, then an optional tip, then "Charge". */
export function Register(props: {
  terminal: PosTerminal;
  busy: boolean;
  failure: string | null;
  onCharge(sale: SaleRequest): void;
}) {
  const { terminal } = props;
  const currency = terminal.currency.slice('iso4217/'.length);
  const digits = digitsOf(currency);
  const money = (v: bigint) => showFiat(v, currency, digits);
  const [tab, setTab] = useState<'keypad' | 'items'>('keypad');
  const [entry, setEntry] = useState('');
  const [counts, setCounts] = useState<Record<string, number>>({});
  const [tip, setTip] = useState<number | null>(null);

  const itemsSubtotal = terminal.catalogue.reduce(
    (sum, item) => sum + BigInt(item.unitAmount) * BigInt(counts[item.id] ?? 0),
    0n,
  );
  const subtotal = tab === 'keypad' ? BigInt(entry || '0') : itemsSubtotal;
  const tipAmount = tip === null ? 0n : tipOf(subtotal, tip);
  const charge = () => {
    const lines = Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([itemId, quantity]) => ({ itemId, quantity }));
    const base: SaleRequest = tab === 'keypad' ? { amount: subtotal.toString() } : { items: lines };
    props.onCharge(tip === null ? base : { ...base, tipPercent: tip });
  };

  return (
    <main class="pos-register">
      <h1 class="visually-hidden">New sale</h1>
      {terminal.catalogue.length > 0 && (
        <div class="pos-tabs" role="group" aria-label="How to ring up">
          <button
            type="button"
            class="button secondary"
            aria-pressed={tab === 'keypad'}
            onClick={() => setTab('keypad')}
          >
            Keypad
          </button>
          <button type="button" class="button secondary" aria-pressed={tab === 'items'} onClick={() => setTab('items')}>
            Items
          </button>
        </div>
      )}
      <output class="pos-display" aria-live="polite" aria-label="Amount">
        {money(subtotal)}
      </output>
      {tab === 'keypad' ? (
        <div class="pos-keypad" role="group" aria-label="Keypad">
          {KEYS.map((k) => (
            <button type="button" key={k} class="button secondary" onClick={() => setEntry((e) => pressDigit(e, k))}>
              {k}
            </button>
          ))}
          <button
            type="button"
            class="button secondary"
            aria-label="Delete last digit"
            onClick={() => setEntry(backspace)}
          >
            ⌫
          </button>
        </div>
      ) : (
        <ul class="pos-items" aria-label="Items">
          {terminal.catalogue.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                class="button secondary"
                onClick={() => setCounts((c) => ({ ...c, [item.id]: (c[item.id] ?? 0) + 1 }))}
              >
                <span>{item.name}</span> <span>{money(BigInt(item.unitAmount))}</span>
              </button>
              {(counts[item.id] ?? 0) > 0 && (
                <span class="pos-count">
                  × {counts[item.id]}{' '}
                  <button
                    type="button"
                    class="link-button"
                    aria-label={`Remove one ${item.name}`}
                    onClick={() => setCounts((c) => ({ ...c, [item.id]: Math.max(0, (c[item.id] ?? 0) - 1) }))}
                  >
                    −1
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {terminal.tipPercents.length > 0 && (
        <div class="pos-tips" role="group" aria-label="Tip">
          <button type="button" class="button secondary" aria-pressed={tip === null} onClick={() => setTip(null)}>
            No tip
          </button>
          {terminal.tipPercents.map((p) => (
            <button type="button" key={p} class="button secondary" aria-pressed={tip === p} onClick={() => setTip(p)}>
              {p} %
            </button>
          ))}
        </div>
      )}
      <dl class="pos-summary">
        <dt>Subtotal</dt>
        <dd>{money(subtotal)}</dd>
        <dt>Tip</dt>
        <dd>{money(tipAmount)}</dd>
        <dt>Total</dt>
        <dd>{money(subtotal + tipAmount)}</dd>
      </dl>
      {props.failure && (
        <p class="field-error" role="alert">
          {props.failure}
        </p>
      )}
      <button type="button" class="button pos-charge" disabled={subtotal === 0n || props.busy} onClick={charge}>
        {props.busy ? 'Creating the payment…' : `Charge ${money(subtotal + tipAmount)}`}
      </button>
    </main>
  );
}
