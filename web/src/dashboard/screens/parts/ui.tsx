/**
 * Small UI pieces the four screens share (web-shell's ui/ has its own; these live here until the two are merged, see
 * the report): times, amounts, status badges, field errors, dialogs (native <dialog>: focus moves in and comes back,
 * Escape closes), the "shown once" secret dialog, a typed confirmation and a cursor pager.
 */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { formatLocalTime, formatMoney, formatUtc, toDate, type Money, type TimeValue } from './format.js';

export function Time({ value }: { value: TimeValue | null | undefined }) {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  return (
    <time dateTime={toDate(value).toISOString()} title={formatUtc(value)}>
      {formatLocalTime(value)}
    </time>
  );
}

export function Amount({ amount }: { amount: Money }) {
  return (
    <span class="num" title={`${amount.value} ${amount.unit} (minor units)`}>
      {formatMoney(amount)}
    </span>
  );
}

const TONES: Record<string, string> = {
  requires_action: 'neutral',
  processing: 'info',
  succeeded: 'ok',
  delivered: 'ok',
  failed: 'bad',
  expired: 'neutral',
  cancelled: 'neutral',
  pending: 'info',
  enabled: 'ok',
  disabled: 'bad',
  refunded: 'warn',
  settled: 'ok',
};

/** A status as a badge: text first (colour is never the only cue). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span class={`badge badge-${TONES[status] ?? 'neutral'}`}>{label ?? status.replace(/_/g, ' ')}</span>;
}

export function FieldError({ id, message }: { id: string; message: string | null }) {
  if (!message) return null;
  return (
    <p class="field-error" id={id} role="alert">
      {message}
    </p>
  );
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <div class="form-error" role="alert">
      {message}
    </div>
  );
}

export function Notice({ children, tone = 'info' }: { children: ComponentChildren; tone?: 'info' | 'ok' | 'warn' }) {
  return (
    <div class={`notice notice-${tone}`} role="status">
      {children}
    </div>
  );
}

/** A modal <dialog>, open while mounted; closing it (Escape, the close button) calls onClose. */
export function Dialog({
  title,
  onClose,
  children,
  describedBy,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  describedBy?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onClose={onClose}
      onCancel={(e: JSX.TargetedEvent<HTMLDialogElement, Event>) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <>
      <button
        type="button"
        class="button"
        onClick={() => {
          navigator.clipboard.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          );
        }}
      >
        {label}
      </button>
      <span class="muted" role="status">
        {copied === true ? 'Copied.' : copied === false ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}

/** A secret shown once: it is in the page only while this dialog is open. */
export function SecretDialog({
  title,
  secret,
  children,
  onClose,
}: {
  title: string;
  secret: string;
  children?: ComponentChildren;
  onClose: () => void;
}) {
  const descriptionId = useId();
  return (
    <Dialog title={title} onClose={onClose} describedBy={descriptionId}>
      <p id={descriptionId}>
        This is the only time it is shown. Store it in your receiver's configuration now; if you lose it, rotate it.
      </p>
      {children}
      <div class="secret">
        <code data-testid="secret" class="secret-value">
          {secret}
        </code>
        <CopyButton value={secret} label="Copy secret" />
      </div>
      <div class="actions">
        <button type="button" class="button primary" onClick={onClose} autofocus>
          I have stored it
        </button>
      </div>
    </Dialog>
  );
}

/**
 * A destructive action confirmed by typing a word (the thing's name, or "delete"): the confirm button stays
 * disabled until the text matches.
 */
export function TypedConfirmDialog({
  title,
  explanation,
  expected,
  alternative,
  action,
  onConfirm,
  onClose,
  error,
  busy,
}: {
  title: string;
  explanation: ComponentChildren;
  expected: string;
  alternative?: string;
  action: string;
  onConfirm: () => void;
  onClose: () => void;
  error: string | null;
  busy: boolean;
}) {
  const [typed, setTyped] = useState('');
  const inputId = useId();
  const matches = typed.trim() === expected || (alternative !== undefined && typed.trim() === alternative);
  return (
    <Dialog title={title} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (matches && !busy) onConfirm();
        }}
      >
        <div>{explanation}</div>
        <label for={inputId}>
          Type <code>{expected}</code>
          {alternative !== undefined ? (
            <>
              {' '}
              or <code>{alternative}</code>
            </>
          ) : null}{' '}
          to confirm
        </label>
        <input
          id={inputId}
          class="input"
          value={typed}
          autocomplete="off"
          spellcheck={false}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <FormError message={error} />
        <div class="actions">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button danger" disabled={!matches || busy}>
            {action}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Previous / Next over a cursor list: the caller keeps the stack of cursors. */
export function Pager({
  page,
  hasMore,
  busy,
  onPrevious,
  onNext,
  label,
}: {
  page: number;
  hasMore: boolean;
  busy: boolean;
  onPrevious: () => void;
  onNext: () => void;
  label: string;
}) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="button" disabled={busy || page === 0} onClick={onPrevious}>
        Previous
      </button>
      <span class="muted">Page {page + 1}</span>
      <button type="button" class="button" disabled={busy || !hasMore} onClick={onNext}>
        Next
      </button>
    </nav>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}
