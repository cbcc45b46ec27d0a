/**
 * What the role may do to a payment: cancel, record a refund (only where the API takes only a record: Paygate holds
 * none of its money; on-chain refunds are in Refunds.tsx), and in test mode the simulator's steps.
 */
import { useId, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { Dialog } from '../../../kit/Dialog.js';
import { fieldMessage } from '../../../kit/failure.js';
import { FieldError, FormError } from '../../../kit/Field.js';
import { useAction } from '../../../kit/request.js';
import {
  cancelPayment,
  refundPayment,
  simulatePayment,
  type PaymentSnapshot,
  type SimulateTarget,
} from '../parts/requests.js';

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

export function Actions(props: {
  payment: PaymentSnapshot;
  /** The server's refund options say the payment can only be recorded as refunded (direct settlement). */
  recordsRefunds: boolean;
  onDone(what: string, next: PaymentSnapshot): void;
}) {
  const { api, mode, role } = useDashboard();
  const { payment } = props;
  const paymentId = payment.payment_id;
  const canAct = role !== 'viewer';
  const [dialog, setDialog] = useState<'cancel' | 'refund' | null>(null);
  const simulate = useAction(async (to: SimulateTarget) =>
    props.onDone(`Simulated ${to}`, await simulatePayment(api, paymentId, to)),
  );
  const steps = mode === 'test' && canAct ? simulatorSteps(payment) : [];
  const canCancel = canAct && payment.status === 'requires_action';
  const canRefund = canAct && props.recordsRefunds && payment.status === 'succeeded' && payment.refunded === null;
  if (!canCancel && !canRefund && steps.length === 0) return null;
  const closeWith = (what: string) => (next: PaymentSnapshot) => {
    setDialog(null);
    props.onDone(what, next);
  };

  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <FormError failure={simulate.failure} />
      <div class="actions">
        {canCancel ? (
          <button type="button" class="button danger" onClick={() => setDialog('cancel')}>
            Cancel payment
          </button>
        ) : null}
        {canRefund ? (
          <button type="button" class="button secondary" onClick={() => setDialog('refund')}>
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
                class="button secondary"
                disabled={simulate.busy}
                onClick={() => void simulate.run(to)}
              >
                Simulate {to}
              </button>
            ))}
          </div>
        </div>
      ) : null}
      {dialog === 'cancel' ? (
        <ReasonDialog
          title="Cancel this payment?"
          explanation="The buyer can no longer pay it. A payment.cancelled event is sent."
          action="Cancel payment"
          onClose={() => setDialog(null)}
          send={async (reason) => closeWith('Cancelled')(await cancelPayment(api, paymentId, reason))}
        />
      ) : null}
      {dialog === 'refund' ? (
        <ReasonDialog
          title="Record a refund"
          explanation="Records that you refunded this payment outside Paygate (Paygate moves no funds). The status stays succeeded; the payment is marked refunded."
          action="Record refund"
          onClose={() => setDialog(null)}
          send={async (reason) => closeWith('Refund recorded')(await refundPayment(api, paymentId, reason))}
        />
      ) : null}
    </section>
  );
}

function ReasonDialog(props: {
  title: string;
  explanation: string;
  action: string;
  onClose(): void;
  send(reason: string): Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const id = useId();
  const submit = useAction(() => props.send(reason));
  const reasonError = fieldMessage(submit.failure, 'reason');
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit.run();
        }}
      >
        <p>{props.explanation}</p>
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
        <FieldError id={`${id}-error`} message={reasonError} />
        <FormError failure={submit.failure} fields={['reason']} />
        <div class="actions">
          <button type="button" class="button secondary" onClick={props.onClose}>
            Back
          </button>
          <button type="submit" class="button primary" disabled={submit.busy}>
            {props.action}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
