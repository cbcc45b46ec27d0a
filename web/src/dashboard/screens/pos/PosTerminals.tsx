import { useState } from 'preact/hooks';
import { useDashboard } from '../../context';
import type { components } from '../../../generated/dashboard.js';
import { showFiat } from '../../../kit/amounts.js';
import { Badge } from '../../../kit/Badge.js';
import { ConfirmDialog } from '../../../kit/Dialog.js';
import { Loaded } from '../../../kit/Loading.js';
import { RoleNotice } from '../../../kit/RoleNotice.js';
import { SecretDialog } from '../../../kit/SecretDialog.js';
import { Table } from '../../../kit/Table.js';
import { Time } from '../../../kit/Time.js';
import { request, useLoad } from '../../../kit/request.js';
import { CreateTerminalDialog } from './CreateTerminalDialog';

export type PosTerminalInfo = components['schemas']['PosTerminalInfo'];

/**
 * The merchant's point-of-sale terminals (owners and developers): each is a screen at /pos/{id} on a counter's
 * device, unlocked once with its POS access key (shown once here). Revoking one stops its key at once.
 */
export function PosTerminals() {
  const { role } = useDashboard();
  return (
    <section aria-labelledby="pos-title">
      <h1 id="pos-title" tabIndex={-1}>
        Point of sale
      </h1>
      {role === 'viewer' ? (
        <RoleNotice role={role} needs="Only owners and developers can see and manage point-of-sale terminals." />
      ) : (
        <TerminalList />
      )}
    </section>
  );
}

function TerminalList() {
  const { api } = useDashboard();
  const [load, reload] = useLoad(() => request(api.GET('/v1/dashboard/pos-terminals')), []);
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<PosTerminalInfo | null>(null);
  const [created, setCreated] = useState<{ terminal: PosTerminalInfo; key: string } | null>(null);
  const screenUrl = (id: string) => `${location.origin}/pos/${id}`;
  return (
    <>
      <p class="muted">
        A terminal is a checkout screen for a shop counter: open its address on a tablet or phone, enter its POS access
        key once, and ring up sales. The key can only create payments on this terminal and follow them.
      </p>
      <div class="actions toolbar">
        <button type="button" class="button" onClick={() => setCreating(true)}>
          Create a terminal
        </button>
      </div>
      <Loaded load={load}>
        {({ data }) => (
          <>
            {data.length === 0 ? (
              <p class="muted">No terminals yet.</p>
            ) : (
              <Table
                label="Point-of-sale terminals"
                rows={data}
                rowKey={(t) => t.id}
                columns={[
                  { label: 'Name', cell: (t) => t.name },
                  {
                    label: 'Screen',
                    cell: (t) => (
                      <a href={screenUrl(t.id)} class="mono">
                        /pos/{t.id}
                      </a>
                    ),
                  },
                  { label: 'Key', cell: (t) => <span class="mono">{t.keyPrefix}…</span> },
                  {
                    label: 'Catalogue',
                    cell: (t) =>
                      t.catalogue.length === 0
                        ? 'Keypad only'
                        : t.catalogue
                            .map((i) => `${i.name} ${showFiat(i.unitAmount, t.currency.slice('iso4217/'.length))}`)
                            .join(', '),
                  },
                  { label: 'Created', cell: (t) => <Time value={t.createdAt} /> },
                  {
                    label: 'State',
                    cell: (t) =>
                      t.revokedAt !== null ? <Badge tone="bad">revoked</Badge> : <Badge tone="good">active</Badge>,
                  },
                  {
                    label: 'Actions',
                    hideLabel: true,
                    cell: (t) =>
                      t.revokedAt === null && (
                        <button type="button" class="button secondary small" onClick={() => setRevoking(t)}>
                          Revoke<span class="visually-hidden"> {t.name}</span>
                        </button>
                      ),
                  },
                ]}
              />
            )}
          </>
        )}
      </Loaded>
      {creating && (
        <CreateTerminalDialog
          onClose={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            setCreated(c);
            reload();
          }}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke the terminal"
          confirmLabel="Revoke"
          typed={revoking.name}
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await request(
              api.DELETE('/v1/dashboard/pos-terminals/{posId}', { params: { path: { posId: revoking.id } } }),
            );
            setRevoking(null);
            reload();
          }}
        >
          <p>
            Its key stops working immediately: the screen can take no more sales. Payments it created are not affected.
          </p>
        </ConfirmDialog>
      )}
      {created && (
        <SecretDialog
          title="Your terminal's POS access key"
          intro={
            <p>
              Open <a href={screenUrl(created.terminal.id)}>{screenUrl(created.terminal.id)}</a> on the counter's device
              and enter this key there once. The dashboard shows only its prefix,{' '}
              <span class="mono">{created.terminal.keyPrefix}…</span>, from now on.
            </p>
          }
          secret={created.key}
          onClose={() => setCreated(null)}
        />
      )}
    </>
  );
}
