import { useState } from 'preact/hooks';
import type { Mode } from '../api';
import { useDashboard } from '../context';
import type { ApiKey } from '../schemas';
import { Badge } from '../../kit/Badge.js';
import { ConfirmDialog } from '../../kit/Dialog.js';
import { Field } from '../../kit/Field.js';
import { FormDialog } from '../../kit/FormDialog.js';
import { Loaded } from '../../kit/Loading.js';
import { RoleNotice } from '../../kit/RoleNotice.js';
import { SecretDialog } from '../../kit/SecretDialog.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { request, useAction, useLoad } from '../../kit/request.js';

/**
 * The merchant's API keys (owners and developers): the keys bound to this merchant, which can be created (the secret
 * shown once), rotated (a new secret shown once; the old key stops at once) and revoked (typed confirmation), and the
 * partner's keys, which act for every merchant of the partner and are managed by the operator: read-only here.
 */
export function ApiKeys() {
  const { role } = useDashboard();
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title" tabIndex={-1}>
        API keys
      </h1>
      {role === 'viewer' ? (
        <RoleNotice role={role} needs="Only owners and developers can see and manage API keys." />
      ) : (
        <KeyList />
      )}
    </section>
  );
}

function KeyList() {
  const { api, mode } = useDashboard();
  const [load, reload] = useLoad(() => request(api.GET('/v1/dashboard/api-keys')), []);
  const [creating, setCreating] = useState(false);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [secret, setSecret] = useState<{ title: string; secret: string; prefix: string } | null>(null);

  return (
    <>
      <p class="muted">
        A key lets your backend call the Paygate API for this merchant. Send it only from your server, never from a
        browser or an app.
      </p>
      <div class="actions toolbar">
        <button type="button" class="button" onClick={() => setCreating(true)}>
          Create a key
        </button>
      </div>
      <Loaded load={load}>
        {({ data }) => (
          <>
            {data.length === 0 ? (
              <p class="muted">No keys yet.</p>
            ) : (
              <Table
                label="API keys"
                rows={data}
                rowKey={(key) => key.id}
                rowData={(key) => ({ 'data-key': key.prefix })}
                columns={[
                  { label: 'Key', cell: (key) => <span class="mono">{key.prefix}…</span> },
                  { label: 'Label', cell: (key) => key.label ?? <span class="muted">—</span> },
                  {
                    label: 'Mode',
                    cell: (key) =>
                      key.mode === 'live' ? <Badge tone="good">live</Badge> : <Badge tone="warn">test</Badge>,
                  },
                  {
                    label: 'Scope',
                    cell: (key) => (
                      <>
                        {key.scope === 'partner' ? 'Partner' : 'This merchant'}
                        {key.canRefund && (
                          <>
                            {' '}
                            <Badge tone="warn">refunds</Badge>
                          </>
                        )}
                      </>
                    ),
                  },
                  { label: 'Created', cell: (key) => <Time value={key.createdAt} /> },
                  { label: 'Last used', cell: (key) => <Time value={key.lastUsedAt} /> },
                  {
                    label: 'State',
                    cell: (key) =>
                      key.revokedAt !== null ? (
                        <span>
                          <Badge tone="bad">revoked</Badge> <Time value={key.revokedAt} />
                        </span>
                      ) : (
                        <Badge tone="good">active</Badge>
                      ),
                  },
                  {
                    label: 'Actions',
                    hideLabel: true,
                    cell: (key) => (
                      <>
                        {key.scope === 'merchant' && key.revokedAt === null && (
                          <span class="row-buttons">
                            <button type="button" class="button secondary small" onClick={() => setRotating(key)}>
                              Rotate<span class="visually-hidden"> {key.prefix}</span>
                            </button>
                            <button type="button" class="button secondary small" onClick={() => setRevoking(key)}>
                              Revoke<span class="visually-hidden"> {key.prefix}</span>
                            </button>
                          </span>
                        )}
                        {key.scope === 'partner' && <span class="muted small">Managed by the operator</span>}
                      </>
                    ),
                  },
                ]}
              />
            )}
            {data.some((k) => k.scope === 'partner') && (
              <p class="muted" role="note">
                Partner keys act for every merchant of your partner account. They are created, rotated and revoked by
                the operator with <code>paygate admin</code>, not here.
              </p>
            )}
          </>
        )}
      </Loaded>
      {creating && (
        <CreateDialog
          defaultMode={mode}
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret({ title: 'Your new API key', secret: created.secret, prefix: created.apiKey.prefix });
            reload();
          }}
        />
      )}
      {rotating && (
        <ConfirmDialog
          title="Rotate the key"
          confirmLabel="Rotate"
          danger
          onClose={() => setRotating(null)}
          onConfirm={async () => {
            const rotated = await request(
              api.POST('/v1/dashboard/api-keys/{keyId}/rotate', { params: { path: { keyId: rotating.id } } }),
            );
            setRotating(null);
            setSecret({ title: 'Your rotated API key', secret: rotated.secret, prefix: rotated.apiKey.prefix });
            reload();
          }}
        >
          <p>
            A new key replaces <strong class="mono">{rotating.prefix}…</strong>.{' '}
            <strong>The old key stops working immediately</strong>: every request still sending it is refused until your
            backend uses the new one.
          </p>
        </ConfirmDialog>
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke the key"
          confirmLabel="Revoke"
          typed={revoking.prefix}
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await request(api.DELETE('/v1/dashboard/api-keys/{keyId}', { params: { path: { keyId: revoking.id } } }));
            setRevoking(null);
            reload();
          }}
        >
          <p>
            The key stops working immediately and cannot be turned back on. Requests still sending it are refused with
            401.
          </p>
        </ConfirmDialog>
      )}
      {secret && (
        <SecretDialog
          title={secret.title}
          intro={
            <p>
              Store this key in your backend's configuration (an environment variable or a secret manager). The
              dashboard shows only its prefix, <span class="mono">{secret.prefix}…</span>, from now on.
            </p>
          }
          secret={secret.secret}
          onClose={() => setSecret(null)}
        />
      )}
    </>
  );
}

function CreateDialog(props: {
  defaultMode: Mode;
  onClose(): void;
  onCreated(created: { apiKey: ApiKey; secret: string }): void;
}) {
  const { api, role } = useDashboard();
  const [mode, setMode] = useState<Mode>(props.defaultMode);
  const [label, setLabel] = useState('');
  const [canRefund, setCanRefund] = useState(false);
  const create = useAction(async () => {
    const trimmed = label.trim();
    props.onCreated(
      await request(
        api.POST('/v1/dashboard/api-keys', { body: { mode, canRefund, ...(trimmed ? { label: trimmed } : {}) } }),
      ),
    );
  });
  const failure = create.failure;
  return (
    <FormDialog
      title="Create an API key"
      action={create}
      fields={['mode', 'label']}
      submitLabel="Create"
      onClose={props.onClose}
    >
      <fieldset>
        <legend>Mode</legend>
        <label class="check">
          <input type="radio" name="mode" value="test" checked={mode === 'test'} onChange={() => setMode('test')} />
          <span>Test: test payments only, no real money</span>
        </label>
        <label class="check">
          <input type="radio" name="mode" value="live" checked={mode === 'live'} onChange={() => setMode('live')} />
          <span>Live: real payments</span>
        </label>
      </fieldset>
      <Field
        label="Label (optional)"
        name="label"
        hint="Where the key is used, e.g. the shop's backend."
        maxLength={100}
        value={label}
        failure={failure}
        onInput={(e) => setLabel(e.currentTarget.value)}
      />
      {role === 'owner' && (
        <label class="check">
          <input
            type="checkbox"
            name="canRefund"
            checked={canRefund}
            onChange={(e) => setCanRefund(e.currentTarget.checked)}
          />
          <span>
            Allow refunds through claim links and large refunds: the key can send your balance to an address a claim
            link's holder enters. Only owners can allow this.
          </span>
        </label>
      )}
    </FormDialog>
  );
}
