import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';
import type { Failure } from '../api';

/**
 * A labelled input with its error beside it: the server's `ErrorResponse.message` when its `param` names this field.
 * The input points at the error with aria-describedby and is marked invalid, so a screen reader reads both.
 */
export function Field(
  props: {
    label: string;
    name: string;
    failure: Failure | null;
    hint?: ComponentChildren;
  } & Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'name'>,
) {
  const { label, name, failure, hint, ...input } = props;
  const id = useId();
  const error = failure && failure.param === name ? failure.message : null;
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        name={name}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        {...input}
      />
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * The form-level error: the server's message when its `param` is none of `fields` (those are shown beside their
 * input), with the wait of a throttle when `Retry-After` came with it.
 */
export function FormError(props: { failure: Failure | null; fields?: string[] }) {
  const { failure } = props;
  if (!failure || (failure.param !== null && props.fields?.includes(failure.param))) {
    return <div role="alert" class="form-error-slot" />;
  }
  return (
    <div role="alert" class="form-error-slot">
      <p class="form-error">
        {failure.message}
        {failure.retryAfter !== null && ` Try again in ${waitText(failure.retryAfter)}.`}
      </p>
    </div>
  );
}

function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
