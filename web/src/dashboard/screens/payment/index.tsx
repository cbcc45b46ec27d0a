/**
 * One payment: its snapshot (amount, status, each stage's facts, or the raw JSON), its timeline (transitions and
 * events, each event with its webhook deliveries and their attempts), and the actions the role allows: cancel (while
 * it waits for the buyer), record an off-platform refund (the merchant contract's refund: a reason, no amount), and in
 * test mode the simulator's steps allowed from the current state.
 */
import { useState } from 'preact/hooks';
import type { DashboardChain } from '../../config';
import { useDashboard } from '../../context.js';
import { Notice, StatusBadge } from '../../../kit/Badge.js';
import { Loaded } from '../../../kit/Loading.js';
import { useLoad } from '../../../kit/request.js';
import { Amount } from '../parts/money.js';
import { getPayment } from '../parts/requests.js';
import { Actions } from './Actions.js';
import { Snapshot } from './Snapshot.js';
import { Sold } from './Sold.js';
import { Timeline } from './Timeline.js';

export { simulatorSteps } from './Actions.js';

export function PaymentDetail({ paymentId, chains }: { paymentId: string; chains: DashboardChain[] }) {
  const { api, mode, navigate } = useDashboard();
  const [load, , show] = useLoad(() => getPayment(api, paymentId), [api, paymentId, mode]);
  const [json, setJson] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  /** Bumped after an action, so the timeline shows its transition and events. */
  const [version, setVersion] = useState(0);

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
                <Amount amount={payment.amount} /> <StatusBadge status={payment.status} />
                {payment.refunded ? (
                  <>
                    {' '}
                    <StatusBadge status="refunded" />
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
              onDone={(what, next) => {
                show(next);
                setNotice(`${what}: the payment is now ${next.status.replace('_', ' ')}.`);
                setVersion((v) => v + 1);
              }}
            />
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
