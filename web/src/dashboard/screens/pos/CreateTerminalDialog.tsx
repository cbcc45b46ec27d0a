import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import { Field } from '../../../kit/Field.js';
import { CurrencyField, FormDialog } from '../../../kit/FormDialog.js';
import { localFailure } from '../../../kit/failure.js';
import { FailureError } from '../../../kit/failure.js';
import { request, useAction } from '../../../kit/request.js';
import type { PosTerminalInfo } from './PosTerminals';

/**
 * A catalogue line as typed: "Espresso = 3.00" per line, the price in the currency's whole units; converted to minor
 * units by string arithmetic (never a float).
 */
export function parseCatalogue(text: string, digits: number): { name: string; unitAmount: string }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const m = /^(.+?)\s*=\s*(\d+)(?:\.(\d+))?$/.exec(line);
      if (!m || (m[3]?.length ?? 0) > digits) {
        throw new FailureError(
          localFailure(`"${line}": write a line as Name = price, e.g. Espresso = 3.00.`, 'catalogue'),
        );
      }
      const minor = `${m[2]}${(m[3] ?? '').padEnd(digits, '0')}`.replace(/^0+/, '');
      if (minor === '') throw new FailureError(localFailure(`"${line}": the price must be above zero.`, 'catalogue'));
      return { name: m[1]!, unitAmount: minor };
    });
}

export function CreateTerminalDialog(props: {
  onClose(): void;
  onCreated(created: { terminal: PosTerminalInfo; key: string }): void;
}) {
  const { api } = useDashboard();
  const [name, setName] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [catalogue, setCatalogue] = useState('');
  const [tips, setTips] = useState('10, 15, 20');
  const create = useAction(async () => {
    const code = currency.trim().toUpperCase();
    let digits = 2;
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      // The server says what is wrong with the code.
    }
    const tipPercents = tips
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .map(Number);
    props.onCreated(
      await request(
        api.POST('/v1/dashboard/pos-terminals', {
          body: { name: name.trim(), currency: code, catalogue: parseCatalogue(catalogue, digits), tipPercents },
        }),
      ),
    );
  });
  const failure = create.failure;
  return (
    <FormDialog
      title="Create a terminal"
      action={create}
      fields={['name', 'currency', 'catalogue', 'tipPercents']}
      submitLabel="Create"
      onClose={props.onClose}
    >
      <Field
        label="Name"
        name="name"
        hint="Where it stands, e.g. Counter."
        maxLength={100}
        value={name}
        failure={failure}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <CurrencyField value={currency} failure={failure} onValue={setCurrency} />
      <div class="field">
        <label for="pos-catalogue">Catalogue (optional)</label>
        <textarea
          id="pos-catalogue"
          name="catalogue"
          rows={4}
          aria-describedby="pos-catalogue-hint"
          value={catalogue}
          onInput={(e) => setCatalogue(e.currentTarget.value)}
        />
        <p id="pos-catalogue-hint" class="hint">
          One item a line: Name = price, e.g. Espresso = 3.00. Without items the terminal has a keypad only.
        </p>
      </div>
      <Field
        label="Tip buttons (optional)"
        name="tipPercents"
        hint="Whole percents separated by commas; empty for no tip."
        value={tips}
        failure={failure}
        onInput={(e) => setTips(e.currentTarget.value)}
      />
    </FormDialog>
  );
}
