import { useEffect, useState } from 'preact/hooks';
import { asFailure, localFailure } from '../../kit/failure.js';
import { request, useAction } from '../../kit/request.js';
import { useShell } from '../context';
import type { Role } from '../context';
import { BASE } from '../routes';
import { EmailField, PasswordField } from '../../kit/CredentialFields.js';
import { Field, FormError } from '../../kit/Field.js';
import { Time } from '../../kit/Time.js';

const ROLE_TEXT: Record<Role, string> = {
  owner: 'Owner: everything, including the team and settings',
  developer: 'Developer: API keys, webhooks and payment actions; reads settings',
  viewer: 'Viewer: reads payments and webhooks; changes nothing',
};

/** Read once, then removed from the address bar: the token is the invitation's only credential. */
function takeToken(): string {
  const token = location.hash.replace(/^#/, '');
  if (token) history.replaceState(null, '', `${location.pathname}${location.search}`);
  return token;
}

/**
 * Accepting an invitation (`/dashboard/invite#<token>`): the token lives only in the fragment, which no request
 * carries; the page reads it, looks the invitation up, shows the merchant and the role, and asks for the email and
 * a password (new account) or the account's current password (existing account), plus a 2FA code when that
 * account has 2FA (the server answers `two_factor_required` and the invitation stays pending until it gets one).
 */
export function Invite() {
  const { api, signedIn, navigate } = useShell();
  const [token] = useState(takeToken);
  const [invitation, setInvitation] = useState<
    | { state: 'loading' }
    | { state: 'invalid'; message: string }
    | { state: 'ready'; merchantName: string; role: Role; expiresAt: number }
  >(token ? { state: 'loading' } : { state: 'invalid', message: 'This link holds no invitation.' });
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  // An existing account with 2FA: the invitation stays pending until the same request carries a code.
  const [second, setSecond] = useState<'none' | 'code' | 'recovery'>('none');
  const [code, setCode] = useState('');

  useEffect(() => {
    document.title = 'Invitation · Paygate dashboard';
    if (!token) return;
    request(api.POST('/v1/dashboard/invitations/lookup', { body: { token } })).then(
      (found) => setInvitation({ state: 'ready', ...found }),
      (err: unknown) => setInvitation({ state: 'invalid', message: asFailure(err).message }),
    );
  }, []);

  const action = useAction(async () => {
    const body = {
      token,
      email: email.trim(),
      password,
      ...(second === 'code' ? { totpCode: code.replace(/\s/g, '') } : {}),
      ...(second === 'recovery' ? { recoveryCode: code.trim() } : {}),
    };
    const result = await request(api.POST('/v1/dashboard/invitations/accept', { body }));
    if (result.status === 'signed_in') {
      signedIn(result.session);
      navigate(BASE);
    } else {
      setSecond('code');
      setCode('');
    }
  });
  const { failure, setFailure, busy } = action;
  const submit = (event: Event) => {
    event.preventDefault();
    if (password !== confirmation) {
      setFailure(localFailure('The two passwords differ.', 'passwordConfirmation'));
      return;
    }
    void action.run();
  };

  if (invitation.state === 'loading') {
    return (
      <>
        <h1>Invitation</h1>
        <p role="status">Looking up the invitation…</p>
      </>
    );
  }
  if (invitation.state === 'invalid') {
    return (
      <>
        <h1>Invitation</h1>
        <p role="alert" class="form-error">
          {invitation.message}
        </p>
        <p>Ask the owner who invited you for a new link. Each link works once and expires after 72 hours.</p>
        <p>
          <a href={`${BASE}/login`}>Go to sign in</a>
        </p>
      </>
    );
  }
  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="invite-title">
      <p class="brand-line">Paygate</p>
      <h1 id="invite-title">Join {invitation.merchantName}</h1>
      <dl class="facts">
        <dt>Role</dt>
        <dd>{ROLE_TEXT[invitation.role]}</dd>
        <dt>Invitation expires</dt>
        <dd>
          <Time value={invitation.expiresAt} />
        </dd>
      </dl>
      <p class="muted">
        New to Paygate? Choose a password of at least 12 characters. Already have an account? Use its email and current
        password.
      </p>
      <FormError failure={failure} fields={['email', 'password', 'passwordConfirmation', 'totpCode', 'recoveryCode']} />
      <EmailField value={email} failure={failure} onValue={setEmail} />
      <PasswordField fresh minLength={12} value={password} failure={failure} onValue={setPassword} />
      <PasswordField
        fresh
        label="Confirm the password"
        name="passwordConfirmation"
        value={confirmation}
        failure={failure}
        onValue={setConfirmation}
      />
      {second !== 'none' && (
        <>
          <p class="muted">
            Your account has two-factor authentication:{' '}
            {second === 'code' ? 'enter the 6-digit code from your authenticator app.' : 'enter a recovery code.'}
          </p>
          <Field
            key={second}
            label={second === 'code' ? 'Authentication code' : 'Recovery code'}
            name={second === 'code' ? 'totpCode' : 'recoveryCode'}
            inputMode={second === 'code' ? 'numeric' : undefined}
            autoComplete={second === 'code' ? 'one-time-code' : 'off'}
            required
            value={code}
            failure={failure}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <p>
            <button
              type="button"
              class="link-button"
              onClick={() => {
                setSecond(second === 'code' ? 'recovery' : 'code');
                setCode('');
              }}
            >
              {second === 'code' ? 'Use a recovery code instead' : 'Use the authenticator app instead'}
            </button>
          </p>
        </>
      )}
      <button type="submit" class="button wide" disabled={busy}>
        {busy ? 'Joining…' : `Join ${invitation.merchantName}`}
      </button>
    </form>
  );
}
