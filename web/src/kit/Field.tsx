import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId } from 'preact/hooks';
import { fieldMessage, formMessage, type Failure } from './failure.js';

/**
 * A labelled input with its error beside it: the server's `ErrorResponse.message` when its `param` names this field.
 * The input points at its hint and error with aria-describedby and is marked invalid, so a screen reader reads both.
 */
export function Field(
  props: {
    label: string;
    name: string;
    failure: Failure | null;
    hint?: ComponentChildren;
    /** A message of the page's own (a check before sending), shown instead of the server's. */
    error?: string | null;
  } & Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'name'>,
) {
  const { label, name, failure, hint, error: own, ...input } = props;
  const id = useId();
  const error = own ?? fieldMessage(failure, name);
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
        class="input"
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        {...input}
      />
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/**
 * An error beside its field (the field points at `id` with aria-describedby). `alert` announces it as it appears,
 * for a check the page makes while the user types (a date range the wrong way round), which no submit announces.
 */
export function FieldError(props: { id: string; message: string | null; alert?: boolean }) {
  if (!props.message) return null;
  return (
    <p class="field-error" id={props.id} role={props.alert ? 'alert' : undefined}>
      {props.message}
    </p>
  );
}

/**
 * The form-level error: the failure's message unless its `param` is one of `fields` (those are shown beside their
 * input), with the wait of a throttle when `Retry-After` came with it. The live region is always there, so a
 * message appearing in it is announced.
 */
export function FormError(props: { failure: Failure | null; fields?: readonly string[] }) {
  const message = formMessage(props.failure, props.fields);
  return (
    <div role="alert" class="form-error-slot">
      {message && (
        <p class="form-error">
          {message}
          {props.failure?.retryAfter != null && ` Try again in ${waitText(props.failure.retryAfter)}.`}
        </p>
      )}
    </div>
  );
}

function waitText(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** A labelled choice among `options` (value and label alike unless `labelOf` names them); `any` adds an empty choice. */
export function SelectField<V extends string>(props: {
  label: string;
  value: V | '';
  options: readonly V[];
  labelOf?(value: V): string;
  any?: string;
  onChange(value: V | ''): void;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} class="input" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value as V)}>
        {props.any !== undefined ? <option value="">{props.any}</option> : null}
        {props.options.map((v) => (
          <option key={v} value={v}>
            {props.labelOf ? props.labelOf(v) : v}
          </option>
        ))}
      </select>
    </div>
  );
}
