import { useState } from 'preact/hooks';
import { useDashboard, useShell, type Role } from '../context';
import { Badge } from '../../kit/Badge.js';
import { ConfirmDialog } from '../../kit/Dialog.js';
import { Dialog } from '../../kit/Dialog.js';
import { FormError } from '../../kit/Field.js';
import { Loaded } from '../../kit/Loading.js';
import { RoleNotice } from '../../kit/RoleNotice.js';
import { SecretDialog } from '../../kit/SecretDialog.js';
import { Table } from '../../kit/Table.js';
import { Time } from '../../kit/Time.js';
import { request, useAction, useLoad } from '../../kit/request.js';

const ROLES: Role[] = ['owner', 'developer', 'viewer'];

/**
 * The team (owners only): members with their role (change it, remove them behind a typed confirmation) and pending
 * invitations (create one: its link is shown once; revoke). The last owner can be neither demoted nor removed: the
 * server answers 409 and the message is shown.
 */
export function Team() {
  const { role } = useDashboard();
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title" tabIndex={-1}>
        Team
      </h1>
      {role === 'owner' ? <TeamPanels /> : <RoleNotice role={role} needs="Only owners can see and manage the team." />}
    </section>
  );
}

function TeamPanels() {
  const { api } = useDashboard();
  const { session, refreshSession } = useShell();
  const [load, reload] = useLoad(() => request(api.GET('/v1/dashboard/team')), []);
  const [removing, setRemoving] = useState<{ userId: string; email: string } | null>(null);
  const [inviting, setInviting] = useState(false);
  const [inviteUrl, setInviteUrl] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);

  const roleChange = useAction(async (userId: string, next: Role) => {
    try {
      await request(
        api.PATCH('/v1/dashboard/team/members/{userId}', { params: { path: { userId } }, body: { role: next } }),
      );
    } finally {
      reload();
    }
    // The user's own role changed: the nav and every screen follow it.
    if (userId === session?.user.id) await refreshSession();
  });
  const roleFailure = roleChange.failure;
  const changeRole = (userId: string, next: Role) => roleChange.run(userId, next);

  return (
    <Loaded load={load}>
      {({ members, invitations }) => (
        <>
          <div class="panel">
            <h2>Members</h2>
            <FormError failure={roleFailure} />
            <Table
              label="Members of this merchant"
              rows={members}
              rowKey={(m) => m.userId}
              rowData={(m) => ({ 'data-member': m.email })}
              columns={[
                {
                  label: 'Email',
                  cell: (m) => (
                    <>
                      {m.email} {m.userId === session?.user.id && <Badge tone="info">You</Badge>}
                    </>
                  ),
                },
                {
                  label: 'Role',
                  cell: (m) => (
                    <>
                      <label class="visually-hidden" for={`role-${m.userId}`}>
                        Role of {m.email}
                      </label>
                      <select
                        id={`role-${m.userId}`}
                        value={m.role}
                        onChange={(e) => void changeRole(m.userId, e.currentTarget.value as Role)}
                      >
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {r}
                          </option>
                        ))}
                      </select>
                    </>
                  ),
                },
                {
                  label: 'Two-factor',
                  cell: (m) => (m.twoFactorEnabled ? <Badge tone="good">On</Badge> : <Badge>Off</Badge>),
                },
                { label: 'Joined', cell: (m) => <Time value={m.joinedAt} /> },
                {
                  label: 'Actions',
                  hideLabel: true,
                  cell: (m) => (
                    <button
                      type="button"
                      class="button secondary small"
                      onClick={() => setRemoving({ userId: m.userId, email: m.email })}
                    >
                      Remove<span class="visually-hidden"> {m.email}</span>
                    </button>
                  ),
                },
              ]}
            />
          </div>
          <div class="panel">
            <h2>Invitations</h2>
            <p class="muted">
              An invitation is a link that works once and expires after 72 hours. Send it to the person yourself.
            </p>
            <button type="button" class="button" onClick={() => setInviting(true)}>
              Invite a member
            </button>
            {invitations.length === 0 ? (
              <p class="muted">No pending invitations.</p>
            ) : (
              <Table
                label="Pending invitations"
                rows={invitations}
                rowKey={(i) => i.id}
                rowData={(i) => ({ 'data-invitation': i.id })}
                columns={[
                  { label: 'Role', cell: (i) => i.role },
                  { label: 'Created', cell: (i) => <Time value={i.createdAt} /> },
                  { label: 'Expires', cell: (i) => <Time value={i.expiresAt} /> },
                  {
                    label: 'Actions',
                    hideLabel: true,
                    cell: (i) => (
                      <button type="button" class="button secondary small" onClick={() => setRevoking(i.id)}>
                        Revoke<span class="visually-hidden"> the {i.role} invitation</span>
                      </button>
                    ),
                  },
                ]}
              />
            )}
          </div>
          {removing && (
            <ConfirmDialog
              title="Remove a member"
              confirmLabel="Remove"
              typed={removing.email}
              danger
              onClose={() => setRemoving(null)}
              onConfirm={async () => {
                await request(
                  api.DELETE('/v1/dashboard/team/members/{userId}', { params: { path: { userId: removing.userId } } }),
                );
                setRemoving(null);
                if (removing.userId === session?.user.id) await refreshSession();
                else reload();
              }}
            >
              <p>
                <strong>{removing.email}</strong> loses access to this merchant at once. Their account and other
                memberships stay.
              </p>
            </ConfirmDialog>
          )}
          {revoking && (
            <ConfirmDialog
              title="Revoke the invitation"
              confirmLabel="Revoke"
              danger
              onClose={() => setRevoking(null)}
              onConfirm={async () => {
                await request(
                  api.DELETE('/v1/dashboard/team/invitations/{invitationId}', {
                    params: { path: { invitationId: revoking } },
                  }),
                );
                setRevoking(null);
                reload();
              }}
            >
              <p>Its link stops working.</p>
            </ConfirmDialog>
          )}
          {inviting && (
            <InviteDialog
              onClose={() => setInviting(false)}
              onCreated={(url) => {
                setInviting(false);
                setInviteUrl(url);
                reload();
              }}
            />
          )}
          {inviteUrl && (
            <SecretDialog
              title="Invitation link"
              intro={
                <p>
                  Send this link to the person you invite. Whoever opens it can join with this role, so send it only to
                  them.
                </p>
              }
              secret={inviteUrl}
              onClose={() => setInviteUrl(null)}
            />
          )}
        </>
      )}
    </Loaded>
  );
}

function InviteDialog(props: { onClose(): void; onCreated(url: string): void }) {
  const { api } = useDashboard();
  const [role, setRole] = useState<Role>('developer');
  const action = useAction(async () => {
    const created = await request(api.POST('/v1/dashboard/team/invitations', { body: { role } }));
    props.onCreated(created.inviteUrl);
  });
  const { failure, busy } = action;
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run();
  };
  return (
    <Dialog title="Invite a member" onClose={props.onClose}>
      <form class="dialog-body" onSubmit={(e) => void submit(e)} noValidate>
        <FormError failure={failure} />
        <fieldset>
          <legend>Role</legend>
          {ROLES.map((r) => (
            <label class="check" key={r}>
              <input type="radio" name="role" value={r} checked={role === r} onChange={() => setRole(r)} />
              <span>
                <strong>{r}</strong>
                <br />
                <span class="muted">
                  {r === 'owner'
                    ? 'Everything, including the team and settings.'
                    : r === 'developer'
                      ? 'API keys, webhooks and payment actions; reads settings.'
                      : 'Reads payments and webhooks; changes nothing.'}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        <div class="dialog-actions">
          <button type="button" class="button secondary" onClick={() => props.onClose()}>
            Cancel
          </button>
          <button type="submit" class="button" disabled={busy}>
            Create the link
          </button>
        </div>
      </form>
    </Dialog>
  );
}
