/**
 * One payment: its snapshot (amount, status, each stage's facts, or the raw JSON), its timeline (transitions and
 * events, each event with its webhook deliveries and their attempts), and the actions the role allows: cancel (while
 * it waits for the buyer), record an off-platform refund (the merchant contract's refund: a reason, no amount), and in
 * test mode the simulator's steps allowed from the current state.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import { AttemptList } from './parts/AttemptList.js';
import type { Failure } from './parts/errors.js';
import {
  cancelPayment,
  getPayment,
  getTimeline,
  refundPayment,
  simulatePayment,
  type PaymentSnapshot,
  type SimulateTarget,
  type Timeline,
  withNextPage,
} from './parts/requests.js';
import { Amount, Dialog, FormError, Loading, Notice, StatusBadge, Time } from './parts/ui.js';
import './parts/screens.css';

/** The simulator's steps allowed from a payment's state (the merchant contract's `simulatePayment` table). */
export function simulatorSteps(payment: PaymentSnapshot): SimulateTarget[] {
  switch (payment.status) {
    case 'requires_action':
      return ['processing', 'failed', 'expired', 'cancelled'];
    case 'processing':
      return ['succeeded', 'failed', 'expired'];
    case 'succeeded':
      // The server settles by hand only a payment the simulator made succeed: one paid on chain waits for its own
      // settlement (in collected mode the payout that covers it) and a step by hand is refused with 409.
      return payment.settled || payment.success?.tx_id !== `test:${payment.payment_id}` ? [] : ['settled'];
    default:
      return [];
  }
}

export function PaymentDetail({ paymentId }: { paymentId: string }) {
  const { api, mode, role, navigate } = useDashboard();
  const canAct = role !== 'viewer';
  const [payment, setPayment] = useState<PaymentSnapshot | null>(null);
  const [timeline, setTimeline] = useState<Timeline | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [timelineFailure, setTimelineFailure] = useState<Failure | null>(null);
  const [json, setJson] = useState(false);
  const [dialog, setDialog] = useState<'cancel' | 'refund' | null>(null);
  const [actionFailure, setActionFailure] = useState<Failure | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const [p, t] = await Promise.all([getPayment(api, paymentId), getTimeline(api, paymentId)]);
    if (p.ok) {
      setPayment(p.data);
      setFailure(null);
    } else setFailure(p.failure);
    if (t.ok) {
      setTimeline(t.data);
      setTimelineFailure(null);
    } else setTimelineFailure(t.failure);
  }, [api, paymentId]);

  // A payment resent many times has more deliveries than one page; the rest load on demand.
  const loadMore = async () => {
    if (!timeline?.nextCursor) return;
    const next = await getTimeline(api, paymentId, timeline.nextCursor);
    if (next.ok) setTimeline(withNextPage(timeline, next.data));
    else setTimelineFailure(next.failure);
  };

  useEffect(() => {
    setPayment(null);
    setTimeline(null);
    void load();
  }, [load, mode]);

  const act = async (what: string, request: () => ReturnType<typeof simulatePayment>) => {
    setBusy(true);
    setNotice(null);
    const result = await request();
    setBusy(false);
    if (result.ok) {
      setActionFailure(null);
      setDialog(null);
      setPayment(result.data);
      setNotice(`${what}: the payment is now ${result.data.status.replace('_', ' ')}.`);
      void load();
    } else setActionFailure(result.failure);
  };

  const back = (
    <a
      href="/dashboard/payments"
      onClick={(e) => {
        e.preventDefault();
        navigate('/dashboard/payments');
      }}
    >
      ← Payments
    </a>
  );

  if (!payment) {
    return (
      <section class="screen" aria-labelledby="payment-title">
        {back}
        <h1 id="payment-title" tabIndex={-1}>
          Payment <code>{paymentId}</code>
        </h1>
        {failure ? (
          <FormError message={failure.status === 404 ? `No ${mode}-mode payment has this id.` : failure.message} />
        ) : (
          <Loading what="the payment" />
        )}
      </section>
    );
  }

  const steps = mode === 'test' && canAct ? simulatorSteps(payment) : [];
  const canCancel = canAct && payment.status === 'requires_action';
  const canRefund = canAct && payment.status === 'succeeded' && payment.refunded === null;

  return (
    <section class="screen" aria-labelledby="payment-title">
      {back}
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
        <button type="button" class="button" aria-pressed={json} onClick={() => setJson(!json)}>
          {json ? 'Show details' : 'Show JSON'}
        </button>
      </header>
      {notice ? <Notice tone="ok">{notice}</Notice> : null}
      {canCancel || canRefund || steps.length > 0 ? (
        <section class="card" aria-labelledby="actions-title">
          <h2 id="actions-title">Actions</h2>
          {dialog === null ? <FormError message={actionFailure?.message ?? null} /> : null}
          <div class="actions">
            {canCancel ? (
              <button type="button" class="button danger" onClick={() => setDialog('cancel')}>
                Cancel payment
              </button>
            ) : null}
            {canRefund ? (
              <button type="button" class="button" onClick={() => setDialog('refund')}>
                Record a refund
              </button>
            ) : null}
          </div>
          {steps.length > 0 ? (
            <div role="group" aria-labelledby="simulator-title">
              <h3 id="simulator-title">Simulator (test mode)</h3>
              <p class="muted">
                Moves this test payment one step, as the buyer, the chain or the settlement would; the real webhooks are
                sent.
              </p>
              <div class="actions">
                {steps.map((to) => (
                  <button
                    key={to}
                    type="button"
                    class="button"
                    disabled={busy}
                    onClick={() => void act(`Simulated ${to}`, () => simulatePayment(api, paymentId, to))}
                  >
                    Simulate {to}
                  </button>
                ))}
              </div>
            </div>
          ) : null}
        </section>
      ) : null}
      {json ? (
        <section class="card" aria-label="The payment as JSON">
          <pre class="pre" data-testid="payment-json">
            {JSON.stringify(payment, null, 2)}
          </pre>
        </section>
      ) : (
        <Snapshot payment={payment} />
      )}
      <section class="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {timelineFailure ? <FormError message={timelineFailure.message} /> : null}
        {timeline === null ? (
          timelineFailure ? null : (
            <Loading what="the timeline" />
          )
        ) : timeline.entries.length === 0 ? (
          <p class="empty">Nothing happened to this payment yet.</p>
        ) : (
          <ol class="timeline">
            {timeline.entries.map((entry, i) => (
              <li key={i} class="timeline-entry">
                <div class="timeline-head">
                  <Time value={entry.at} />{' '}
                  {entry.kind === 'transition' ? (
                    <span>
                      Status <StatusBadge status={entry.status ?? 'unknown'} />
                    </span>
                  ) : (
                    <span>
                      Event <code>{entry.event?.type}</code>{' '}
                      <code class="muted" title="event id">
                        {entry.event?.id}
                      </code>
                    </span>
                  )}
                </div>
                {entry.deliveries && entry.deliveries.length > 0 ? (
                  <ul class="deliveries">
                    {entry.deliveries.map((d) => (
                      <li key={d.id}>
                        <details>
                          <summary>
                            Delivery <code>{d.id}</code> ({d.trigger}) <StatusBadge status={d.status} />,{' '}
                            {d.attemptCount} {d.attemptCount === 1 ? 'attempt' : 'attempts'}
                          </summary>
                          <AttemptList attempts={d.attempts ?? []} pruned={d.attemptsPruned === true} />
                        </details>
                      </li>
                    ))}
                  </ul>
                ) : entry.kind === 'event' ? (
                  <p class="muted">No webhook delivery (no endpoint wanted this event).</p>
                ) : null}
              </li>
            ))}
          </ol>
        )}
        {timeline?.hasMore ? (
          <button type="button" class="button secondary" onClick={() => void loadMore()}>
            Show more deliveries
          </button>
        ) : null}
      </section>
      {dialog === 'cancel' ? (
        <ReasonDialog
          title="Cancel this payment?"
          explanation="The buyer can no longer pay it. A payment.cancelled event is sent."
          action="Cancel payment"
          busy={busy}
          failure={actionFailure}
          onClose={() => setDialog(null)}
          onSubmit={(reason) => void act('Cancelled', () => cancelPayment(api, paymentId, reason))}
        />
      ) : null}
      {dialog === 'refund' ? (
        <ReasonDialog
          title="Record a refund"
          explanation="Records that you refunded this payment outside Paygate (Paygate moves no funds). The status stays succeeded; the payment is marked refunded."
          action="Record refund"
          busy={busy}
          failure={actionFailure}
          onClose={() => setDialog(null)}
          onSubmit={(reason) => void act('Refund recorded', () => refundPayment(api, paymentId, reason))}
        />
      ) : null}
    </section>
  );
}

function ReasonDialog({
  title,
  explanation,
  action,
  busy,
  failure,
  onClose,
  onSubmit,
}: {
  title: string;
  explanation: string;
  action: string;
  busy: boolean;
  failure: Failure | null;
  onClose: () => void;
  onSubmit: (reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  const id = useId();
  const reasonError = failure?.param === 'reason' ? failure.message : null;
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit(reason);
        }}
      >
        <p>{explanation}</p>
        <label for={id}>Reason (optional, for your records)</label>
        <textarea
          id={id}
          class="input"
          maxLength={500}
          rows={3}
          value={reason}
          aria-invalid={reasonError ? 'true' : undefined}
          aria-describedby={reasonError ? `${id}-error` : undefined}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
        {reasonError ? (
          <p class="field-error" id={`${id}-error`} role="alert">
            {reasonError}
          </p>
        ) : (
          <FormError message={failure?.message ?? null} />
        )}
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Back
          </button>
          <button type="submit" class="button primary" disabled={busy}>
            {action}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function Stage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="stage" aria-label={title}>
      <h3>{title}</h3>
      <dl class="facts">{children}</dl>
    </section>
  );
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Snapshot({ payment: p }: { payment: PaymentSnapshot }) {
  return (
    <section class="card" aria-labelledby="snapshot-title">
      <h2 id="snapshot-title">Details</h2>
      <dl class="facts">
        <Fact label="Payment">
          <code class="break">{p.payment_id}</code>
        </Fact>
        <Fact label="Reference">
          <span class="break">{p.reference_id}</span>
        </Fact>
        <Fact label="Amount">
          <Amount amount={p.amount} />
        </Fact>
        <Fact label="Mode">{p.live ? 'Live' : 'Test'}</Fact>
        <Fact label="Created">
          <Time value={p.created_at} />
        </Fact>
        <Fact label="Expires">
          <Time value={p.expires_at} />
        </Fact>
        <Fact label="State version">
          <span class="num">{p.payment_state_version}</span>
        </Fact>
      </dl>
      {p.processing ? (
        <Stage title="Processing">
          <Fact label="At">
            <Time value={p.processing.processing_at} />
          </Fact>
          <Fact label="Paid with">
            <Amount amount={p.processing.option_amount} />
          </Fact>
          <Fact label="Settlement">
            <Amount amount={p.processing.settlement_amount} />
          </Fact>
          <Fact label="Fee">{p.processing.fee ? <Amount amount={p.processing.fee.total_amount} /> : 'None'}</Fact>
          <Fact label="Buyer">
            <code class="break">{p.processing.buyer_caip10}</code>
          </Fact>
          <Fact label="Chain">
            <code>{p.processing.chain_caip2}</code>
          </Fact>
        </Stage>
      ) : null}
      {p.success ? (
        <Stage title="Succeeded">
          <Fact label="At">
            <Time value={p.success.succeeded_at} />
          </Fact>
          <Fact label="Transaction">
            <code class="break">{p.success.tx_id}</code>
          </Fact>
        </Stage>
      ) : null}
      {p.settled ? (
        <Stage title="Settled">
          <Fact label="At">
            <Time value={p.settled.settled_at} />
          </Fact>
          <Fact label="Amount">
            <Amount amount={p.settled.settlement_amount} />
          </Fact>
        </Stage>
      ) : null}
      {p.refunded ? (
        <Stage title="Refunded">
          <Fact label="At">
            <Time value={p.refunded.refunded_at} />
          </Fact>
          <Fact label="Reason">{p.refunded.reason ?? '—'}</Fact>
        </Stage>
      ) : null}
      {p.failed ? (
        <Stage title="Failed">
          <Fact label="At">
            <Time value={p.failed.failed_at} />
          </Fact>
          <Fact label="Reason">{p.failed.failure_reason}</Fact>
        </Stage>
      ) : null}
      {p.cancelled ? (
        <Stage title="Cancelled">
          <Fact label="At">
            <Time value={p.cancelled.cancelled_at} />
          </Fact>
          <Fact label="By">{p.cancelled.cancelled_by}</Fact>
          <Fact label="Reason">{p.cancelled.cancellation_reason ?? '—'}</Fact>
        </Stage>
      ) : null}
      {p.expired ? (
        <Stage title="Expired">
          <Fact label="At">
            <Time value={p.expired.expired_at} />
          </Fact>
        </Stage>
      ) : null}
    </section>
  );
}
