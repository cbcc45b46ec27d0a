import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { FormError } from './Field.js';
import { useAction } from './request.js';

/**
 * A modal <dialog>: the browser traps focus in it, Escape closes it, and focus returns to what opened it. Mounted
 * when shown, unmounted when closed (the parent keeps the state).
 */
export function Dialog(props: {
  title: string;
  onClose(): void;
  children: ComponentChildren;
  wide?: boolean;
  describedBy?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      aria-describedby={props.describedBy}
      onClose={() => props.onClose()}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * A confirmation. With `typed`, a destructive action's button stays disabled until the user types that exact text
 * (the member's email, the endpoint's URL) or `alternative` ("delete"): a slip of the mouse cannot remove anything.
 * `onConfirm` throws to refuse (its failure is shown in the dialog); the caller closes the dialog on success.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  typed?: string;
  alternative?: string;
  danger?: boolean;
  onConfirm(): Promise<void>;
  onClose(): void;
}) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const confirm = useAction(props.onConfirm);
  const ready =
    props.typed === undefined ||
    typed.trim() === props.typed ||
    (props.alternative !== undefined && typed.trim() === props.alternative);
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        class="dialog-body"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (ready) void confirm.run();
        }}
      >
        {props.children}
        {props.typed !== undefined && (
          <div class="field">
            <label for={inputId}>
              Type <strong class="mono">{props.typed}</strong>
              {props.alternative !== undefined && (
                <>
                  {' '}
                  or <strong class="mono">{props.alternative}</strong>
                </>
              )}{' '}
              to confirm
            </label>
            <input
              id={inputId}
              autoComplete="off"
              spellcheck={false}
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
            />
          </div>
        )}
        <FormError failure={confirm.failure} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={() => props.onClose()}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'button danger' : 'button'} disabled={!ready || confirm.busy}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
