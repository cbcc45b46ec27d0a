/**
 * A payment's money held by Paygate and its on-chain refunds (issue 31 findings 1 and 5, docs/decisions.md §26.21,
 * §26.22): what reached its deposit address and the state of its refund, every refund with its progress, a refund
 * the API would send (partial or full, its minimum, network fee and destination said before sending) and a claim
 * link's cancellation. What is offered comes from the server's `getDashboardRefundOptions`, so the page never offers
 * what the API refuses; a refusal still shows the API's own message.
 */
import { useId, useState } from 'preact/hooks';
import type { DashboardChain } from '../../config';
import { useDashboard } from '../../context.js';
import { Badge, type Tone } from '../../../kit/Badge.js';
import { Dialog } from '../../../kit/Dialog.js';
import { Field, FormError } from '../../../kit/Field.js';
import { SecretDialog } from '../../../kit/SecretDialog.js';
import { useAction } from '../../../kit/request.js';
import { showAmount } from '../../../kit/amounts.js';
import { assetOfUnit } from '../parts/format.js';
import { refundStateWord } from '../parts/statusWords.js';
import { AnyAmount, assetInfo, Network, TokenAmount, Transaction } from '../parts/money.js';
import {
  cancelRefund,
  sendRefund,
  type PaymentSnapshot,
  type RefundAnswer,
  type RefundOptions,
} from '../parts/requests.js';

type Source = RefundOptions['sources'][number];
type Refund = NonNullable<NonNullable<PaymentSnapshot['refunded']>['refunds']>[number];

const HELD_WORDS: Record<RefundOptions['refund_state'], [string, Tone]> = {
  none: ['', 'neutral'],
  to_refund: ['To refund', 'warn'],
  refunding: ['Refunding', 'info'],
  refunded: ['Refunded', 'good'],
};

const REFUND_TONE: Record<string, Tone> = {
  awaiting_claim: 'info',
  planned: 'info',
  sent: 'info',
  final: 'good',
  failed: 'bad',
};

export function Refunds(props: {
  payment: PaymentSnapshot;
  options: RefundOptions;
  chains: DashboardChain[];
  onDone(what: string, next: PaymentSnapshot | null): void;
}) {
  const { role } = useDashboard();
  const { payment, options, chains } = props;
  const refunds = payment.refunded?.refunds ?? [];
  const canAct = role !== 'viewer';
  // A claim link lets its holder choose the address: the API takes it from an owner only (refund policy, §22.13).
  const offered = canAct
    ? options.sources.filter(
        (s) =>
          BigInt(s.left.value) >= BigInt(s.minimum.value) && (role === 'owner' || s.destination === 'paying_wallet'),
      )
    : [];
  const [sending, setSending] = useState<Source | null>(null);
  const [link, setLink] = useState<string | null>(null);
  if (options.how !== 'onchain' && options.received === null && refunds.length === 0) return null;
  const [heldWord, heldTone] = HELD_WORDS[options.refund_state];

  return (
    <section class="card" aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      {options.received ? (
        <p data-testid="received">
          <TokenAmount chains={chains} amount={options.received} /> received of{' '}
          <AnyAmount chains={chains} amount={payment.amount} />
          {heldWord ? (
            <>
              {' '}
              <Badge tone={heldTone}>{heldWord}</Badge>
            </>
          ) : null}
        </p>
      ) : null}
      {options.received && payment.status !== 'succeeded' ? (
        <p class="muted">
          The payment ended before it was paid in full: what arrived is the buyer's, and is returned with a refund.
        </p>
      ) : null}
      {refunds.length > 0 ? (
        <ul aria-label="On-chain refunds">
          {refunds.map((r) => (
            <RefundRow key={r.refund_id} refund={r} chains={chains} canAct={canAct} onDone={props.onDone} />
          ))}
        </ul>
      ) : null}
      {offered.length > 0 ? (
        <div class="actions">
          {offered.map((s) => (
            <button key={s.source} type="button" class="button primary" onClick={() => setSending(s)}>
              {s.source === 'excess' ? 'Refund what arrived' : 'Refund on chain'}
            </button>
          ))}
        </div>
      ) : null}
      {sending ? (
        <RefundDialog
          payment={payment}
          source={sending}
          chains={chains}
          onClose={() => setSending(null)}
          onSent={(answer) => {
            setSending(null);
            if (answer.refund?.claim_url) setLink(answer.refund.claim_url);
            props.onDone('Refund created', answer);
          }}
        />
      ) : null}
      {link ? (
        <SecretDialog
          title="The buyer's claim link"
          intro={
            <p>
              Send this link to the buyer: they open it and enter an address of the payment's network, and the refund is
              sent there. It works once, for 30 days.
            </p>
          }
          secret={link}
          onClose={() => setLink(null)}
        />
      ) : null}
    </section>
  );
}

function RefundRow(props: {
  refund: Refund;
  chains: DashboardChain[];
  canAct: boolean;
  onDone(what: string, next: PaymentSnapshot | null): void;
}) {
  const { api } = useDashboard();
  const r = props.refund;
  const word = refundStateWord(r.state);
  const tone = REFUND_TONE[r.state] ?? 'neutral';
  const cancel = useAction(async () => {
    await cancelRefund(api, r.refund_id);
    props.onDone('Claim link cancelled', null);
  });
  return (
    <li>
      <TokenAmount chains={props.chains} amount={r.amount} /> on <Network chains={props.chains} caip2={r.chain_caip2} />{' '}
      <Badge tone={tone}>{word}</Badge>
      {r.tx_id ? (
        <>
          {' '}
          <Transaction chains={props.chains} caip2={r.chain_caip2} txId={r.tx_id} />
        </>
      ) : null}
      {r.state === 'awaiting_claim' && props.canAct ? (
        <>
          {' '}
          <button type="button" class="button secondary" disabled={cancel.busy} onClick={() => void cancel.run()}>
            Cancel claim link
          </button>
        </>
      ) : null}
      <FormError failure={cancel.failure} />
    </li>
  );
}

/** Whole units typed by a person, to exact minor units (no float); null when it is not an amount of this asset. */
export function toMinorUnits(text: string, decimals: number): string | null {
  const match = /^(\d+)(?:[.,](\d*))?$/.exec(text.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) return null;
  const units = BigInt(match[1]! + fraction.padEnd(decimals, '0'));
  return units > 0n ? units.toString() : null;
}

function RefundDialog(props: {
  payment: PaymentSnapshot;
  source: Source;
  chains: DashboardChain[];
  onClose(): void;
  onSent(answer: RefundAnswer): void;
}) {
  const { api } = useDashboard();
  const { source, chains } = props;
  const info = assetInfo(chains, assetOfUnit(source.left.unit));
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [own, setOwn] = useState<string | null>(null);
  // One key for this dialog's refund: a second submit after a lost answer replays it instead of refunding twice.
  const [key] = useState(() => crypto.randomUUID());
  const reasonId = useId();
  const submit = useAction(async () => {
    const minor = amount.trim() === '' ? undefined : info ? toMinorUnits(amount, info.decimals) : null;
    if (minor === null) {
      setOwn(`Enter an amount in ${info?.symbol ?? 'whole units'}, for example 5 or 5.25.`);
      return;
    }
    setOwn(null);
    const body = {
      ...(minor === undefined ? {} : { amount: minor }),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
      ...(source.source === 'excess' ? { source: 'excess' as const } : {}),
    };
    props.onSent(await sendRefund(api, props.payment.payment_id, body, key));
  });
  const whole = (value: string) =>
    info ? showAmount({ value, decimals: info.decimals, symbol: info.symbol }, { rounding: 'nearest' }).full : value;
  return (
    <Dialog title={source.source === 'excess' ? 'Refund what arrived' : 'Refund on chain'} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit.run();
        }}
      >
        <dl class="facts">
          <dt>Up to</dt>
          <dd>
            <TokenAmount chains={chains} amount={source.left} />
          </dd>
          <dt>Minimum</dt>
          <dd>
            <TokenAmount chains={chains} amount={source.minimum} />
          </dd>
          <dt>Network fee</dt>
          <dd>
            <TokenAmount chains={chains} amount={source.network_fee} />
            {BigInt(source.network_fee.value) > 0n ? ', charged to you with the refund' : ', none for you'}
          </dd>
          <dt>Goes to</dt>
          <dd>
            {source.destination === 'paying_wallet'
              ? 'The wallet that paid'
              : 'An address the buyer enters through a one-time link, shown once after sending'}
          </dd>
        </dl>
        {source.destination === 'claim_link' || BigInt(source.left.value) > BigInt(source.owner_above.value) ? (
          <p class="muted">
            A refund through a claim link, or of more than <TokenAmount chains={chains} amount={source.owner_above} />,
            can be sent only by an owner.
          </p>
        ) : null}
        <Field
          label={`Amount${info ? ` in ${info.symbol}` : ''}`}
          name="amount"
          inputMode="decimal"
          autoComplete="off"
          placeholder={whole(source.left.value)}
          hint="Leave empty to refund all of it."
          failure={submit.failure}
          error={own}
          value={amount}
          onInput={(e) => setAmount(e.currentTarget.value)}
        />
        <label for={reasonId}>Reason (optional, for your records)</label>
        <textarea
          id={reasonId}
          class="input"
          maxLength={500}
          rows={2}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
        <FormError failure={submit.failure} fields={['amount']} />
        <div class="actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Back
          </button>
          <button type="submit" class="button primary" disabled={submit.busy}>
            Send refund
          </button>
        </div>
      </form>
    </Dialog>
  );
}
