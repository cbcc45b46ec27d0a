import { useState } from 'preact/hooks';
import { useShell } from '../context';
import { ConfirmDialog } from '../../kit/Dialog.js';
import { Dialog } from '../../kit/Dialog.js';
import { AuthCodeField, PasswordField } from '../../kit/CredentialFields.js';
import { FormError } from '../../kit/Field.js';
import { Loaded } from '../../kit/Loading.js';
import { QrCode } from '../../kit/Qr.js';
import { SecretDialog } from '../../kit/SecretDialog.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { request, useAction, useLoad } from '../../kit/request.js';
import { Badge } from '../../kit/Badge.js';
import { BASE } from '../routes';
import { describeAgent } from './parts/agent.js';

/** The base32 secret in groups of four, easier to type into an app by hand. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

/**
 * The signed-in user's own security: two-factor authentication (enrol with a QR code or the manual secret, confirm
 * with a code, recovery codes shown once; regenerate them; disable) and the sessions signed in to this account, with
 * "this device" marked and every other one revocable.
 */
export function Security() {
  const { session } = useShell();
  return (
    <section aria-labelledby="security-title">
      <h1 id="security-title" tabIndex={-1}>
        Security
      </h1>
      <TwoFactor enabled={session?.user.twoFactorEnabled === true} />
      <Sessions />
    </section>
  );
}

function TwoFactor(props: { enabled: boolean }) {
  const { api, refreshSession } = useShell();
  const [enrolment, setEnrolment] = useState<{ secret: string; otpauthUri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [dialog, setDialog] = useState<'disable' | 'regenerate' | null>(null);
  const [code, setCode] = useState('');

  const enrol = useAction(async () => {
    setEnrolment(await request(api.POST('/v1/dashboard/two-factor/enrol')));
    setCode('');
  });
  const activation = useAction(async () => {
    const result = await request(
      api.POST('/v1/dashboard/two-factor/activate', { body: { code: code.replace(/\s/g, '') } }),
    );
    setEnrolment(null);
    setCode('');
    setCodes(result.recoveryCodes);
    await refreshSession();
  });
  const start = () => enrol.run();
  const activate = (event: Event) => {
    event.preventDefault();
    void activation.run();
  };
  const failure = activation.failure ?? enrol.failure;
  const busy = activation.busy;

  return (
    <div class="panel">
      <h2>Two-factor authentication</h2>
      <p>Status: {props.enabled ? <Badge tone="good">On</Badge> : <Badge tone="warn">Off</Badge>}</p>
      {!props.enabled && !enrolment && (
        <>
          <p class="muted">
            With two-factor authentication, signing in takes a code from an authenticator app on your phone as well as
            your password.
          </p>
          <FormError failure={failure} />
          <button type="button" class="button" onClick={() => void start()}>
            Set up two-factor authentication
          </button>
        </>
      )}
      {!props.enabled && enrolment && (
        <form onSubmit={(e) => void activate(e)} noValidate aria-label="Confirm two-factor authentication">
          <ol class="steps">
            <li>
              <p>Scan this QR code with your authenticator app.</p>
              <QrCode value={enrolment.otpauthUri} label="QR code of your two-factor secret for an authenticator app" />
            </li>
            <li>
              <p>Or type this secret into the app:</p>
              <code class="secret" data-totp-secret>
                {grouped(enrolment.secret)}
              </code>
            </li>
            <li>
              <p>Enter the 6-digit code the app shows, to confirm.</p>
              <FormError failure={failure} fields={['code']} />
              <AuthCodeField name="code" value={code} failure={failure} onValue={setCode} />
            </li>
          </ol>
          <div class="actions">
            <button type="submit" class="button" disabled={busy}>
              Turn on
            </button>
            <button type="button" class="button secondary" onClick={() => setEnrolment(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {props.enabled && (
        <div class="actions">
          <button type="button" class="button secondary" onClick={() => setDialog('regenerate')}>
            Regenerate recovery codes
          </button>
          <button type="button" class="button danger" onClick={() => setDialog('disable')}>
            Turn off two-factor authentication
          </button>
        </div>
      )}
      {dialog === 'regenerate' && (
        <CodeDialog
          title="Regenerate recovery codes"
          intro="Your current recovery codes stop working. Enter a code from your authenticator app to continue."
          confirm="Regenerate"
          onClose={() => setDialog(null)}
          onSubmit={async ({ code: totp }) => {
            const result = await request(api.POST('/v1/dashboard/two-factor/recovery-codes', { body: { code: totp } }));
            setDialog(null);
            setCodes(result.recoveryCodes);
          }}
        />
      )}
      {dialog === 'disable' && (
        <CodeDialog
          title="Turn off two-factor authentication"
          intro="Signing in will take your password only. Enter your password and a code from your authenticator app."
          confirm="Turn off"
          danger
          withPassword
          onClose={() => setDialog(null)}
          onSubmit={async ({ code: totp, password }) => {
            await request(api.POST('/v1/dashboard/two-factor/disable', { body: { code: totp, password } }));
            setDialog(null);
            await refreshSession();
          }}
        />
      )}
      {codes && (
        <SecretDialog
          title="Your recovery codes"
          intro={
            <p>
              If you lose your phone, each of these codes signs you in once instead of an authenticator code. Keep them
              somewhere safe, such as a password manager.
            </p>
          }
          secret={codes.join('\n')}
          multiline
          downloadName="paygate-recovery-codes.txt"
          onClose={() => setCodes(null)}
        />
      )}
    </div>
  );
}

function CodeDialog(props: {
  title: string;
  intro: string;
  confirm: string;
  danger?: boolean;
  withPassword?: boolean;
  onClose(): void;
  onSubmit(values: { code: string; password: string }): Promise<void>;
}) {
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction(async () => {
    await props.onSubmit({ code: code.replace(/\s/g, ''), password });
  });
  const { failure, busy } = action;
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run();
  };
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form class="dialog-body" onSubmit={(e) => void submit(e)} noValidate>
        <p>{props.intro}</p>
        <FormError failure={failure} fields={props.withPassword ? ['code', 'password'] : ['code']} />
        {props.withPassword && <PasswordField value={password} failure={failure} onValue={setPassword} />}
        <AuthCodeField name="code" value={code} failure={failure} onValue={setCode} />
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={() => props.onClose()}>
            Cancel
          </button>
          <button type="submit" class={props.danger ? 'button danger' : 'button'} disabled={busy}>
            {props.confirm}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function Sessions() {
  const { api, navigate } = useShell();
  const [load, reload] = useLoad(() => request(api.GET('/v1/dashboard/sessions')), []);
  const [revoking, setRevoking] = useState<{ id: string; current: boolean } | null>(null);
  return (
    <div class="panel">
      <h2>Signed-in sessions</h2>
      <Loaded load={load}>
        {({ sessions }) => (
          <Table
            label="Sessions signed in to your account"
            rows={sessions}
            rowKey={(s) => s.id}
            rowData={(s) => ({ 'data-session': s.current ? 'current' : 'other' })}
            columns={[
              {
                label: 'Device',
                cell: (s) => (
                  <>
                    <span class="ua" title={s.userAgent ?? undefined}>
                      {describeAgent(s.userAgent)}
                    </span>{' '}
                    {s.current && <Badge tone="info">This device</Badge>}
                  </>
                ),
              },
              { label: 'Address', cell: (s) => <span class="mono">{s.ip ?? '—'}</span> },
              { label: 'Signed in', cell: (s) => <Time value={s.createdAt} /> },
              { label: 'Last active', cell: (s) => <Time value={s.lastSeenAt} /> },
              { label: 'Expires', cell: (s) => <Time value={s.expiresAt} /> },
              {
                label: 'Actions',
                hideLabel: true,
                cell: (s) => (
                  <button
                    type="button"
                    class="button secondary small"
                    onClick={() => setRevoking({ id: s.id, current: s.current })}
                  >
                    {s.current ? 'Sign out' : 'Revoke'}
                  </button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
      {revoking && (
        <ConfirmDialog
          title={revoking.current ? 'Sign out this device' : 'Revoke this session'}
          confirmLabel={revoking.current ? 'Sign out' : 'Revoke'}
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await request(
              api.DELETE('/v1/dashboard/sessions/{sessionId}', { params: { path: { sessionId: revoking.id } } }),
            );
            setRevoking(null);
            if (revoking.current) navigate(`${BASE}/login`);
            else reload();
          }}
        >
          <p>
            {revoking.current
              ? 'This browser will be signed out.'
              : 'That browser is signed out at its next request, and must sign in again.'}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
