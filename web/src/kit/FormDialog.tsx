import type { ComponentChildren } from 'preact';
import { Dialog } from './Dialog.js';
import type { Failure } from './failure.js';
import { Field, FormError } from './Field.js';
import type { Action } from './request.js';

/**
 * A dialog that is one form: the form-level error on top (the errors of `fields` stand beside their inputs), the
 * fields, then Cancel and the one submit button, which is disabled while the action runs. Every create dialog is
 * this, so none writes its submit, busy and failure handling out again.
 */
export function FormDialog(props: {
  title: string;
  action: Action<[]>;
  fields: readonly string[];
  submitLabel: string;
  onClose(): void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  return (
    <Dialog title={props.title} onClose={props.onClose} wide={props.wide}>
      <form
        class="dialog-body"
        onSubmit={(e) => {
          e.preventDefault();
          void props.action.run();
        }}
        noValidate
      >
        <FormError failure={props.action.failure} fields={props.fields} />
        {props.children}
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={() => props.onClose()}>
            Cancel
          </button>
          <button type="submit" class="button" disabled={props.action.busy}>
            {props.submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The fiat currency of a price, as the three-letter code the server takes. */
export function CurrencyField(props: { value: string; failure: Failure | null; onValue(value: string): void }) {
  return (
    <Field
      label="Currency"
      name="currency"
      hint="A three-letter code, e.g. USD or EUR."
      maxLength={3}
      value={props.value}
      failure={props.failure}
      onInput={(e) => props.onValue(e.currentTarget.value)}
    />
  );
}
