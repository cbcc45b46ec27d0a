import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { asFailure, type Failure } from '../api';
import { Dialog } from './Dialog';
import { FormError } from './Field';

/**
 * A confirmation of a destructive action. With `typed`, the button stays disabled until the user types that exact
 * text (the member's email, the key's prefix): a slip of the mouse cannot remove anything.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  typed?: string;
  danger?: boolean;
  onConfirm(): Promise<void>;
  onClose(): void;
}) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const ready = props.typed === undefined || typed === props.typed;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!ready || busy) return;
    setBusy(true);
    setFailure(null);
    try {
      await props.onConfirm();
    } catch (err) {
      setFailure(asFailure(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form class="dialog-body" onSubmit={(e) => void submit(e)} noValidate>
        {props.children}
        {props.typed !== undefined && (
          <div class="field">
            <label for="confirm-typed">
              Type <strong class="mono">{props.typed}</strong> to confirm
            </label>
            <input
              id="confirm-typed"
              autoComplete="off"
              spellcheck={false}
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </div>
        )}
        <FormError failure={failure} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={() => props.onClose()}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'button danger' : 'button'} disabled={!ready || busy}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
