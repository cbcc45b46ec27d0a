/** The endpoint of the current mode: its facts, the failing/disabled banner, and what an owner or developer can do. */
import { useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { StatusBadge } from '../../../kit/Badge.js';
import { ConfirmDialog } from '../../../kit/Dialog.js';
import { FormError } from '../../../kit/Field.js';
import { request, useAction } from '../../../kit/request.js';
import { Time } from '../../../kit/Time.js';
import { webhookEventTypeValues as EVENT_TYPES } from '../../../generated/dashboard.js';
import type { WebhookEndpoint } from '../parts/webhookTypes.js';
import { EditEndpoint } from './EndpointForm.js';

export { CreateEndpoint } from './EndpointForm.js';

export function EndpointCard(props: {
  endpoint: WebhookEndpoint;
  canWrite: boolean;
  onChanged(e: WebhookEndpoint): void;
  onDeleted(): void;
  onRotated(e: WebhookEndpoint, secret: string, previousValidUntil: number): void;
}) {
  const { api } = useDashboard();
  const { endpoint, canWrite } = props;
  const [editing, setEditing] = useState(false);
  const [dialog, setDialog] = useState<'rotate' | 'delete' | null>(null);
  const toggle = useAction(async (enabled: boolean) =>
    props.onChanged(await request(api.PATCH('/v1/dashboard/webhook-endpoint', { body: { enabled } }))),
  );

  return (
    <section class="card" aria-labelledby="endpoint-title">
      <div class="card-head">
        <h2 id="endpoint-title">Endpoint</h2>
        <StatusBadge status={endpoint.enabled ? 'enabled' : 'disabled'} />
      </div>
      {!endpoint.enabled ? (
        <div class="banner banner-bad" role="status">
          <p>
            <strong>This endpoint is disabled</strong>
            {endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}. It receives no events, and no delivery is
            created for new events.
            {endpoint.failingSince !== null ? (
              <>
                {' '}
                Every attempt had failed since <Time value={endpoint.failingSince} />.
              </>
            ) : null}{' '}
            After re-enabling it, replay the events it missed.
          </p>
          {canWrite ? (
            <button type="button" class="button primary" disabled={toggle.busy} onClick={() => void toggle.run(true)}>
              Re-enable
            </button>
          ) : null}
        </div>
      ) : endpoint.failingSince !== null ? (
        <div class="banner banner-warn" role="status">
          <p>
            <strong>Deliveries are failing.</strong> Every attempt since <Time value={endpoint.failingSince} /> has
            failed. After 5 days of failures the endpoint is disabled automatically.
          </p>
        </div>
      ) : null}
      <FormError failure={toggle.failure} />
      {editing ? (
        <EditEndpoint
          endpoint={endpoint}
          onCancel={() => setEditing(false)}
          onSaved={(e) => {
            setEditing(false);
            props.onChanged(e);
          }}
        />
      ) : (
        <Facts endpoint={endpoint} />
      )}
      {canWrite && !editing ? (
        <div class="actions">
          <button type="button" class="button secondary" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" class="button secondary" onClick={() => setDialog('rotate')}>
            Rotate secret
          </button>
          {endpoint.enabled ? (
            <button
              type="button"
              class="button secondary"
              disabled={toggle.busy}
              onClick={() => void toggle.run(false)}
            >
              Disable
            </button>
          ) : null}
          <button type="button" class="button danger" onClick={() => setDialog('delete')}>
            Delete
          </button>
        </div>
      ) : null}
      {dialog === 'rotate' ? (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirmLabel="Rotate secret"
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            const rotated = await request(api.POST('/v1/dashboard/webhook-endpoint/rotate-secret'));
            setDialog(null);
            props.onRotated(rotated.endpoint, rotated.secret, rotated.previousSecretExpiresAt);
          }}
        >
          <p>
            A new secret is created and shown once. For 24 hours every delivery is signed with both the new and the
            previous secret, so your receiver keeps verifying while you update its configuration.
          </p>
        </ConfirmDialog>
      ) : null}
      {dialog === 'delete' ? (
        <ConfirmDialog
          title="Delete this endpoint?"
          typed={endpoint.url}
          alternative="delete"
          confirmLabel="Delete endpoint"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await request(api.DELETE('/v1/dashboard/webhook-endpoint'));
            setDialog(null);
            props.onDeleted();
          }}
        >
          <p>
            Deleting takes effect now and cannot be undone: pending deliveries are abandoned and the secrets destroyed.
            The delivery log stays.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function Facts({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <dl class="facts">
      <dt>URL</dt>
      <dd>
        <code class="break" data-testid="endpoint-url">
          {endpoint.url}
        </code>
      </dd>
      <dt>Events</dt>
      <dd>
        {endpoint.eventTypes.length === EVENT_TYPES.length ? 'All event types' : null}
        <ul class="inline-list">
          {endpoint.eventTypes.map((t) => (
            <li key={t}>
              <code>{t}</code>
            </li>
          ))}
        </ul>
      </dd>
      <dt>Mode</dt>
      <dd>{endpoint.mode}</dd>
      <dt>Created</dt>
      <dd>
        <Time value={endpoint.createdAt} />
      </dd>
      <dt>Secret rotated</dt>
      <dd>{endpoint.secretRotatedAt === null ? 'Never' : <Time value={endpoint.secretRotatedAt} />}</dd>
      {endpoint.previousSecretExpiresAt !== null ? (
        <>
          <dt>Previous secret</dt>
          <dd>
            Still signs until <Time value={endpoint.previousSecretExpiresAt} />
          </dd>
        </>
      ) : null}
    </dl>
  );
}
