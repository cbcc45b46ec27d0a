import type { InputHTMLAttributes } from 'preact';
import type { Failure } from './failure.js';
import { Field } from './Field.js';

/**
 * The sign-in fields every form that asks who you are shares (sign-in, accepting an invitation, confirming a
 * security change), so their labels, autocomplete hints and error placement cannot drift apart.
 */
type Credential = {
  value: string;
  failure: Failure | null;
  onValue(value: string): void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'label' | 'name'>;

function pass(props: Credential) {
  const { value, failure, onValue, ...rest } = props;
  return {
    value,
    failure,
    onInput: (e: { currentTarget: HTMLInputElement }) => onValue(e.currentTarget.value),
    ...rest,
  };
}

export function EmailField(props: Credential) {
  return <Field label="Email" name="email" type="email" autoComplete="username" required {...pass(props)} />;
}

/** `fresh` is a password being chosen: the browser offers to generate one, and it has the server's minimum length. */
export function PasswordField(props: Credential & { fresh?: boolean; label?: string; name?: string }) {
  const { fresh, label, name, ...rest } = props;
  return (
    <Field
      label={label ?? 'Password'}
      name={name ?? 'password'}
      type="password"
      autoComplete={fresh ? 'new-password' : 'current-password'}
      required
      {...pass(rest)}
    />
  );
}

/** The 6-digit code of an authenticator app; people often type it with a space in the middle, hence 7 characters. */
export function AuthCodeField(props: Credential & { name: string }) {
  const { name, ...rest } = props;
  return (
    <Field
      label="Authentication code"
      name={name}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      required
      {...pass(rest)}
    />
  );
}
