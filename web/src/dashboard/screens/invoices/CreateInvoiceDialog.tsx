import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import { Field, FieldError } from '../../../kit/Field.js';
import { CurrencyField, FormDialog } from '../../../kit/FormDialog.js';
import { FailureError, fieldMessage, localFailure, type Failure } from '../../../kit/failure.js';
import { request, useAction } from '../../../kit/request.js';
import { currencyDigits, dateInputValue, localMidnightAfter } from '../parts/format.js';
import { minorUnitsOf } from '../links/minorUnits.js';
import type { Invoice } from './index.js';

interface Line {
  name: string;
  quantity: string;
  price: string;
}

const EMPTY: Line = { name: '', quantity: '1', price: '' };
const FIELDS = ['currency', 'dueAt', 'buyer.name', 'buyer.email', 'notes'];

/** The fields of line `i` as the server names them (`lineItems.0.name`). */
const lineField = (i: number, key: 'name' | 'quantity' | 'unitAmount') => `lineItems.${i}.${key}`;

/**
 * Issue an invoice: its lines (what, how many, the price of one), its currency and due date, who it is for and notes.
 * Amounts are typed in the currency's units and sent as minor units; the page checks them before sending.
 */
export function CreateInvoiceDialog(props: { onClose(): void; onCreated(invoice: Invoice): void }) {
  const { api } = useDashboard();
  const [lines, setLines] = useState<Line[]>([{ ...EMPTY }]);
  const [currency, setCurrency] = useState('USD');
  const [due, setDue] = useState(dateInputValue(new Date(Date.now() + 30 * 86400_000)));
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [notes, setNotes] = useState('');
  const create = useAction(async () => {
    const code = currency.trim().toUpperCase();
    const digits = currencyDigits(code);
    const lineItems = lines.map((line, i) => {
      if (line.name.trim() === '')
        throw new FailureError(localFailure('Say what this line is for.', lineField(i, 'name')));
      const quantity = Number(line.quantity);
      if (!Number.isInteger(quantity) || quantity < 1)
        throw new FailureError(localFailure('Enter a whole number of 1 or more.', lineField(i, 'quantity')));
      const unitAmount = minorUnitsOf(line.price, digits);
      if (unitAmount === null)
        throw new FailureError(localFailure(`Enter a price in ${code}, like 12.50.`, lineField(i, 'unitAmount')));
      return { name: line.name.trim(), quantity, unitAmount };
    });
    const dueAt = localMidnightAfter(due);
    if (dueAt === null) throw new FailureError(localFailure('Choose the date payment is due.', 'dueAt'));
    const buyer = {
      ...(name.trim() !== '' ? { name: name.trim() } : {}),
      ...(email.trim() !== '' ? { email: email.trim() } : {}),
    };
    props.onCreated(
      await request(
        api.POST('/v1/dashboard/invoices', {
          body: {
            currency: `iso4217/${code}`,
            lineItems,
            // The end of the due day, local time: the invoice is overdue from the next morning.
            dueAt: dueAt - 1,
            ...(Object.keys(buyer).length > 0 ? { buyer } : {}),
            ...(notes.trim() !== '' ? { notes: notes.trim() } : {}),
          },
        }),
      ),
    );
  });
  const failure = create.failure;
  const change = (i: number, patch: Partial<Line>) => setLines(lines.map((l, j) => (j === i ? { ...l, ...patch } : l)));
  const lineNames = lines.flatMap((_, i) => [
    lineField(i, 'name'),
    lineField(i, 'quantity'),
    lineField(i, 'unitAmount'),
  ]);
  return (
    <FormDialog
      title="Create an invoice"
      action={create}
      fields={[...FIELDS, ...lineNames]}
      submitLabel="Create invoice"
      onClose={props.onClose}
      wide
    >
      {lines.map((line, i) => (
        <fieldset key={i}>
          <legend>Line {i + 1}</legend>
          <Field
            label="Item"
            name={lineField(i, 'name')}
            maxLength={200}
            required
            value={line.name}
            failure={failure}
            onInput={(e) => change(i, { name: e.currentTarget.value })}
          />
          <Field
            label="Quantity"
            name={lineField(i, 'quantity')}
            inputMode="numeric"
            value={line.quantity}
            failure={failure}
            onInput={(e) => change(i, { quantity: e.currentTarget.value })}
          />
          <Field
            label="Price of one"
            name={lineField(i, 'unitAmount')}
            inputMode="decimal"
            value={line.price}
            failure={failure}
            onInput={(e) => change(i, { price: e.currentTarget.value })}
          />
          {lines.length > 1 && (
            <button
              type="button"
              class="button secondary small"
              onClick={() => setLines(lines.filter((_, j) => j !== i))}
            >
              Remove line {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      <div class="actions">
        <button type="button" class="button secondary" onClick={() => setLines([...lines, { ...EMPTY }])}>
          Add a line
        </button>
      </div>
      <CurrencyField value={currency} failure={failure} onValue={setCurrency} />
      <Field
        label="Due date"
        name="dueAt"
        type="date"
        value={due}
        failure={failure}
        onInput={(e) => setDue(e.currentTarget.value)}
      />
      <Field
        label="Buyer's name (optional)"
        name="buyer.name"
        maxLength={200}
        autoComplete="off"
        value={name}
        failure={failure}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <Field
        label="Buyer's email (optional)"
        name="buyer.email"
        type="email"
        maxLength={254}
        autoComplete="off"
        value={email}
        failure={failure}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <Notes value={notes} failure={failure} onInput={setNotes} />
    </FormDialog>
  );
}

/** The notes, several lines, with their error beside them like a Field's. */
function Notes(props: { value: string; failure: Failure | null; onInput(value: string): void }) {
  const error = fieldMessage(props.failure, 'notes');
  return (
    <div class="field">
      <label for="invoice-notes">Notes (optional)</label>
      <p class="hint" id="invoice-notes-hint">
        Printed on the invoice: payment terms, a thank-you.
      </p>
      <textarea
        id="invoice-notes"
        name="notes"
        class="input"
        rows={3}
        maxLength={2000}
        value={props.value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'invoice-notes-hint invoice-notes-error' : 'invoice-notes-hint'}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      <FieldError id="invoice-notes-error" message={error} />
    </div>
  );
}
