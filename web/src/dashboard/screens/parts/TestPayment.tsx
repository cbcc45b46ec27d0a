/**
 * The overview's "Create a test payment" (issue 31 finding 14): a test payment made from the dashboard
 * (createDashboardTestPayment), then its checkout link to copy or open, and its page. Test mode, developer and up.
 */
import { useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { CopyButton } from '../../../kit/CopyButton.js';
import { Dialog } from '../../../kit/Dialog.js';
import { Field, FormError } from '../../../kit/Field.js';
import { FailureError, localFailure } from '../../../kit/failure.js';
import { request, useAction } from '../../../kit/request.js';

interface Created {
  paymentId: string;
  gatewayUrl: string;
}

/** "12.5" → "1250" (US dollars to cents) by string arithmetic; null when it is not a positive amount. */
export function dollarsToCents(text: string): string | null {
  const m = /^\s*(\d{1,13})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  const cents = `${m[1]}${(m[2] ?? '').padEnd(2, '0')}`.replace(/^0+/, '');
  return cents === '' ? null : cents;
}

export function TestPaymentAction({ onCreated }: { onCreated(): void }) {
  const { api, mode, role, navigate } = useDashboard();
  const [open, setOpen] = useState(false);
  const [amount, setAmount] = useState('12.50');
  const [reference, setReference] = useState('test_order_1');
  const [created, setCreated] = useState<Created | null>(null);
  const create = useAction(async () => {
    const value = dollarsToCents(amount);
    if (value === null)
      throw new FailureError(localFailure('Enter an amount in dollars, such as 12.50.', 'amount.value'));
    const answer = await request(
      api.POST('/v1/dashboard/test-payment', {
        body: { amount: { unit: 'iso4217/USD', value }, referenceId: reference },
      }),
    );
    setCreated({ paymentId: answer.paymentId, gatewayUrl: answer.gatewayUrl });
    setOpen(false);
    onCreated();
  });
  if (mode !== 'test' || role === 'viewer') return null;
  const page = created ? `/dashboard/payments/${created.paymentId}` : '';
  return (
    <div class="card" data-testid="test-payment">
      <div class="actions">
        <button type="button" class="button primary" onClick={() => setOpen(true)}>
          Create a test payment
        </button>
      </div>
      {created ? (
        <div role="status">
          <p>A test payment was created. Open its checkout to pay it as a buyer would, with test money.</p>
          <div class="actions">
            <CopyButton value={created.gatewayUrl} label="Copy checkout link" />
            <a class="button secondary" href={created.gatewayUrl} target="_blank" rel="noreferrer">
              Open the checkout
            </a>
            <a
              href={page}
              onClick={(e) => {
                e.preventDefault();
                navigate(page);
              }}
            >
              See the payment
            </a>
          </div>
        </div>
      ) : null}
      {open ? (
        <Dialog title="Create a test payment" onClose={() => setOpen(false)}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void create.run();
            }}
          >
            <Field
              label="Amount (US dollars)"
              name="amount.value"
              failure={create.failure}
              inputMode="decimal"
              value={amount}
              onInput={(e) => setAmount(e.currentTarget.value)}
            />
            <Field
              label="Order reference"
              name="referenceId"
              hint="Shown to the buyer on the checkout; never put personal data in it."
              failure={create.failure}
              value={reference}
              onInput={(e) => setReference(e.currentTarget.value)}
            />
            <FormError failure={create.failure} fields={['amount.value', 'referenceId']} />
            <div class="actions">
              <button type="button" class="button secondary" onClick={() => setOpen(false)}>
                Back
              </button>
              <button type="submit" class="button primary" disabled={create.busy}>
                Create
              </button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </div>
  );
}
