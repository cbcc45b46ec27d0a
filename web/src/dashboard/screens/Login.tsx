import { useEffect, useRef, useState } from 'preact/hooks';
import { request, useAction } from '../../kit/request.js';
import { useShell } from '../context';
import { AuthCodeField, EmailField, PasswordField } from '../../kit/CredentialFields.js';
import { Field, FormError } from '../../kit/Field.js';

/**
 * Sign in: email and password, then, when the account has two-factor authentication, a second step asking for the
 * 6-digit code of the authenticator app, or one of the recovery codes instead. The password stays in this
 * component's memory between the two steps (the server checks both together) and is dropped on success.
 */
export function Login(props: { next: string }) {
  const { api, signedIn, navigate } = useShell();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [step, setStep] = useState<'password' | 'code' | 'recovery'>('password');
  const [code, setCode] = useState('');
  const stepHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    document.title = 'Sign in · Paygate dashboard';
  }, []);
  useEffect(() => {
    if (step !== 'password') stepHeading.current?.focus();
  }, [step]);

  const action = useAction(async () => {
    const body = {
      email: email.trim(),
      password,
      ...(step === 'code' ? { totpCode: code.replace(/\s/g, '') } : {}),
      ...(step === 'recovery' ? { recoveryCode: code.trim() } : {}),
    };
    const result = await request(api.POST('/v1/dashboard/auth/login', { body }));
    if (result.status === 'two_factor_required') {
      setStep('code');
      setCode('');
      return;
    }
    setPassword('');
    signedIn(result.session);
    navigate(props.next);
  });
  const { failure, setFailure, busy } = action;
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run();
  };

  if (step === 'password') {
    return (
      <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="login-title">
        <p class="brand-line">Paygate</p>
        <h1 id="login-title">Sign in to your dashboard</h1>
        <FormError failure={failure} fields={['email', 'password']} />
        <EmailField value={email} failure={failure} onValue={setEmail} />
        <PasswordField value={password} failure={failure} onValue={setPassword} />
        <button type="submit" class="button wide" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    );
  }
  const recovery = step === 'recovery';
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="login-2fa-title">
      <p class="brand-line">Paygate</p>
      <h1 id="login-2fa-title" ref={stepHeading} tabIndex={-1}>
        Two-factor authentication
      </h1>
      <p class="muted">
        {recovery
          ? 'Enter one of the recovery codes you saved when you set up two-factor authentication. Each code works once.'
          : 'Enter the 6-digit code from your authenticator app.'}
      </p>
      <FormError failure={failure} fields={[recovery ? 'recoveryCode' : 'totpCode']} />
      {recovery ? (
        <Field
          key="recovery"
          label="Recovery code"
          name="recoveryCode"
          autoComplete="off"
          spellcheck={false}
          required
          value={code}
          failure={failure}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      ) : (
        <AuthCodeField key="totp" name="totpCode" pattern="[0-9 ]*" value={code} failure={failure} onValue={setCode} />
      )}
      <button type="submit" class="button wide" disabled={busy}>
        {busy ? 'Checking…' : 'Verify'}
      </button>
      <p>
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setStep(recovery ? 'code' : 'recovery');
            setCode('');
            setFailure(null);
          }}
        >
          {recovery ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
        </button>
      </p>
      <p>
        <button
          type="button"
          class="link-button"
          onClick={() => {
            setStep('password');
            setPassword('');
            setCode('');
            setFailure(null);
          }}
        >
          Back to email and password
        </button>
      </p>
    </form>
  );
}
