/**
 * One payment: its snapshot (amount, status, each stage's facts, or the raw JSON), its timeline (transitions and
 * events, each event with its webhook deliveries and their attempts), and the actions the role allows: cancel (while
 * it waits for the buyer), an on-chain refund where Paygate holds the payment's money or the record of an off-platform
 * one where it does not (Refunds.tsx, from the server's refund options), and in test mode the simulator's steps.
 */
import { useState } from 'preact/hooks';
import type { DashboardChain } from '../../config';
import { useDashboard } from '../../context.js';
import { Notice, StatusBadge } from '../../../kit/Badge.js';
import { paymentStatusWord } from '../parts/statusWords.js';
import { Loaded } from '../../../kit/Loading.js';
import { useLoad } from '../../../kit/request.js';
import { Amount } from '../parts/money.js';
import { getPayment, getRefundOptions, type PaymentSnapshot, type RefundOptions } from '../parts/requests.js';
import { Refunds } from './Refunds.js';
import { Actions } from './Actions.js';
import { Snapshot } from './Snapshot.js';
import { Sold } from './Sold.js';
import { Timeline } from './Timeline.js';

export { simulatorSteps } from './Actions.js';

/** A refund stage whose every on-chain refund ended unsent (link expired or cancelled) refunded nothing. */
function refundStands(payment: PaymentSnapshot): boolean {
  const refunds = payment.refunded?.refunds ?? [];
  if (!payment.refunded) return false;
  return refunds.length === 0 || refunds.some((r) => r.state !== 'expired' && r.state !== 'cancelled');
}

/** Some of the payment's own money is still refundable: a refund took part of it, not all. */
function partlyRefunded(options: RefundOptions | null): boolean {
  return options?.sources.some((s) => s.source === 'payment' && BigInt(s.left.value) > 0n) ?? false;
}

export function PaymentDetail({ paymentId, chains }: { paymentId: string; chains: DashboardChain[] }) {
  const { api, mode, navigate } = useDashboard();
  const [load, reload, show] = useLoad(() => getPayment(api, paymentId), [api, paymentId, mode]);
  const [json, setJson] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Bumped after an action, so the timeline shows its transition and events. */
  const [version, setVersion] = useState(0);
  // Read again after every action: a refund or a cancelled link changes what is left and its state.
  const [refunds] = useLoad(() => getRefundOptions(api, paymentId), [api, paymentId, mode, version]);
  const options = refunds.state === 'ready' ? refunds.data : null;

  return (
    <section class="screen" aria-labelledby="payment-title">
      <a
        href="/dashboard/payments"
        onClick={(e) => {
          e.preventDefault();
          navigate('/dashboard/payments');
        }}
      >
        ← Payments
      </a>
      <Loaded
        load={load}
        what="the payment"
        notFound={`No ${mode}-mode payment has this id.`}
        fallback={
          <h1 id="payment-title" tabIndex={-1}>
            Payment <code>{paymentId}</code>
          </h1>
        }
      >
        {(payment) => (
          <>
            <header class="screen-head">
              <h1 id="payment-title" tabIndex={-1}>
                <Amount amount={payment.amount} />{' '}
                <StatusBadge status={payment.status} label={paymentStatusWord(payment.status)} />
                {refundStands(payment) ? (
                  <>
                    {' '}
                    <StatusBadge
                      status="refunded"
                      label={partlyRefunded(options) ? 'Partly refunded' : paymentStatusWord('refunded')}
                    />
                  </>
                ) : null}
              </h1>
              <button type="button" class="button secondary" aria-pressed={json} onClick={() => setJson(!json)}>
                {json ? 'Show details' : 'Show JSON'}
              </button>
            </header>
            {notice ? <Notice tone="ok">{notice}</Notice> : null}
            <Actions
              payment={payment}
              recordsRefunds={options?.how === 'record'}
              onDone={(what, next) => {
                show(next);
                setNotice(`${what}: the payment is now ${next.status.replace('_', ' ')}.`);
                setVersion((v) => v + 1);
              }}
            />
            {options ? (
              <Refunds
                payment={payment}
                options={options}
                chains={chains}
                onDone={(what, next) => {
                  if (next) show(next);
                  else reload();
                  setNotice(`${what}.`);
                  setVersion((v) => v + 1);
                }}
              />
            ) : null}
            {json ? (
              <section class="card" aria-label="The payment as JSON">
                <pre class="pre" data-testid="payment-json">
                  {JSON.stringify(payment, null, 2)}
                </pre>
              </section>
            ) : (
              <>
                <Sold payment={payment} />
                <Snapshot payment={payment} chains={chains} />
              </>
            )}
            <Timeline paymentId={paymentId} version={version} />
          </>
        )}
      </Loaded>
    </section>
  );
}
