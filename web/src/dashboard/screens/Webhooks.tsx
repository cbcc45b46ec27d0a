/**
 * Webhooks: the endpoint of the current mode (create → secret shown once; edit, rotate, disable/enable, delete behind
 * a typed confirmation; the banner when deliveries fail or it was disabled), a test event, the delivery log with each
 * delivery's attempts and a resend, the bulk recoveries (resend failed since a date, replay missed events) and the
 * addresses deliveries come from. Viewers see everything and change nothing.
 */
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { useDashboard } from '../context.js';
import type { DashboardClient } from '../api.js';
import { AttemptList } from './parts/AttemptList.js';
import { fieldMessage, formMessage, type Failure } from './parts/errors.js';
import { dateInputValue, localMidnight, shortId } from './parts/format.js';
import { getWebhookSources, settle } from './parts/requests.js';
import {
  Dialog,
  FieldError,
  FormError,
  Loading,
  Notice,
  Pager,
  SecretDialog,
  StatusBadge,
  Time,
  TypedConfirmDialog,
} from './parts/ui.js';
import {
  REPLAY_WINDOW_DAYS,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
  type WebhookEventType,
} from './parts/webhookTypes.js';
import {
  webhookDeliveryStatusValues as DELIVERY_STATUSES,
  webhookEventTypeValues as EVENT_TYPES,
} from '../../generated/dashboard.js';
import './parts/screens.css';

interface ShownSecret {
  title: string;
  secret: string;
  /** Unix seconds until which the previous secret still signs (after a rotation). */
  previousValidUntil?: number;
}

export function Webhooks() {
  const { api, mode, role } = useDashboard();
  const canWrite = role !== 'viewer';
  const [endpoint, setEndpoint] = useState<WebhookEndpoint | null | undefined>(undefined);
  const [loadFailure, setLoadFailure] = useState<Failure | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  /** Bumped after anything that creates deliveries, so the log reloads. */
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const refreshDeliveries = useCallback(() => setDeliveriesVersion((v) => v + 1), []);

  const load = useCallback(async () => {
    const result = await settle(api.GET('/v1/dashboard/webhook-endpoint'));
    if (result.ok) {
      setEndpoint(result.data);
      setLoadFailure(null);
    } else if (result.failure.status === 404) {
      setEndpoint(null);
      setLoadFailure(null);
    } else {
      setLoadFailure(result.failure);
    }
  }, [api]);

  useEffect(() => {
    setEndpoint(undefined);
    void load();
  }, [load, mode]);

  return (
    <section class="screen" aria-labelledby="webhooks-title">
      <header class="screen-head">
        <h1 id="webhooks-title" tabIndex={-1}>
          Webhooks
        </h1>
        <p class="muted">
          The {mode} endpoint receives the {mode}-mode events of this merchant, signed with its secret.
        </p>
      </header>
      {loadFailure ? <FormError message={loadFailure.message} /> : null}
      {endpoint === undefined && !loadFailure ? <Loading what="the endpoint" /> : null}
      {endpoint === null ? (
        canWrite ? (
          <CreateEndpoint
            api={api}
            mode={mode}
            onCreated={(created, secret) => {
              setEndpoint(created);
              setShown({ title: 'Your endpoint’s signing secret', secret });
            }}
          />
        ) : (
          <div class="card">
            <h2>No endpoint</h2>
            <p>This merchant has no {mode}-mode webhook endpoint. A developer or an owner can add one.</p>
          </div>
        )
      ) : null}
      {endpoint ? (
        <>
          <EndpointCard
            api={api}
            endpoint={endpoint}
            canWrite={canWrite}
            onChanged={(e) => setEndpoint(e)}
            onDeleted={() => {
              setEndpoint(null);
              refreshDeliveries();
            }}
            onRotated={(e, secret, previousValidUntil) => {
              setEndpoint(e);
              setShown({ title: 'Your endpoint’s new signing secret', secret, previousValidUntil });
            }}
          />
          {canWrite ? (
            <div class="grid-2">
              <TestEvent api={api} disabled={!endpoint.enabled} onSent={refreshDeliveries} />
              <Recovery api={api} disabled={!endpoint.enabled} onDone={refreshDeliveries} />
            </div>
          ) : null}
        </>
      ) : null}
      <DeliveryLog
        api={api}
        canWrite={canWrite && !!endpoint?.enabled}
        version={deliveriesVersion}
        mode={mode}
        onRefresh={() => void load()}
      />
      <Sources api={api} />
      {shown ? (
        <SecretDialog title={shown.title} secret={shown.secret} onClose={() => setShown(null)}>
          {shown.previousValidUntil !== undefined ? (
            <p>
              The previous secret keeps signing deliveries, beside the new one, until{' '}
              <Time value={shown.previousValidUntil} />: update your receiver before then.
            </p>
          ) : null}
        </SecretDialog>
      ) : null}
    </section>
  );
}

function EventTypeFields({
  selected,
  onChange,
  error,
}: {
  selected: readonly WebhookEventType[];
  onChange: (types: WebhookEventType[]) => void;
  error: string | null;
}) {
  const errorId = useId();
  return (
    <fieldset class="fieldset" aria-describedby={error ? errorId : undefined}>
      <legend>Event types</legend>
      <div class="checks">
        {EVENT_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="eventTypes"
              value={type}
              checked={selected.includes(type)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                onChange(EVENT_TYPES.filter((t) => (t === type ? on : selected.includes(t))));
              }}
            />
            <code>{type}</code>
          </label>
        ))}
      </div>
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}

function UrlField({
  value,
  onInput,
  error,
  mode,
}: {
  value: string;
  onInput: (v: string) => void;
  error: string | null;
  mode: string;
}) {
  const id = useId();
  const hintId = useId();
  const errorId = useId();
  return (
    <div class="field">
      <label for={id}>Endpoint URL</label>
      <input
        id={id}
        name="url"
        class="input"
        type="url"
        required
        value={value}
        placeholder="https://shop.example.com/webhooks/paygate"
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={`${hintId}${error ? ` ${errorId}` : ''}`}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      <p class="hint" id={hintId}>
        HTTPS to a public address
        {mode === 'test' ? '; in test mode, http:// on loopback when the server allows it' : ''}.
      </p>
      <FieldError id={errorId} message={error} />
    </div>
  );
}

function CreateEndpoint({
  api,
  mode,
  onCreated,
}: {
  api: DashboardClient;
  mode: string;
  onCreated: (endpoint: WebhookEndpoint, secret: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<WebhookEventType[]>([...EVENT_TYPES]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const noTypes = types.length === 0 ? 'Choose at least one event type.' : null;
  return (
    <form
      class="card"
      aria-labelledby="create-endpoint-title"
      noValidate
      onSubmit={async (e) => {
        e.preventDefault();
        if (noTypes) return;
        setBusy(true);
        const result = await settle(
          api.POST('/v1/dashboard/webhook-endpoint', { body: { url: url.trim(), eventTypes: types } }),
        );
        setBusy(false);
        if (result.ok) onCreated(result.data.endpoint, result.data.secret);
        else setFailure(result.failure);
      }}
    >
      <h2 id="create-endpoint-title">Add an endpoint</h2>
      <p class="muted">This merchant has no {mode}-mode endpoint yet. Events are sent to the URL you give here.</p>
      <FormError message={formMessage(failure, ['url', 'eventTypes'])} />
      <UrlField value={url} onInput={setUrl} error={fieldMessage(failure, 'url')} mode={mode} />
      <EventTypeFields selected={types} onChange={setTypes} error={noTypes ?? fieldMessage(failure, 'eventTypes')} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy || !!noTypes}>
          Add endpoint
        </button>
      </div>
    </form>
  );
}

function EndpointCard({
  api,
  endpoint,
  canWrite,
  onChanged,
  onDeleted,
  onRotated,
}: {
  api: DashboardClient;
  endpoint: WebhookEndpoint;
  canWrite: boolean;
  onChanged: (e: WebhookEndpoint) => void;
  onDeleted: () => void;
  onRotated: (e: WebhookEndpoint, secret: string, previousValidUntil: number) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [dialog, setDialog] = useState<'rotate' | 'delete' | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);

  const setEnabled = async (enabled: boolean) => {
    setBusy(true);
    const result = await settle(api.PATCH('/v1/dashboard/webhook-endpoint', { body: { enabled } }));
    setBusy(false);
    if (result.ok) {
      setFailure(null);
      onChanged(result.data);
    } else setFailure(result.failure);
  };

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
            <button type="button" class="button primary" disabled={busy} onClick={() => void setEnabled(true)}>
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
      <FormError message={failure?.message ?? null} />
      {editing ? (
        <EditEndpoint
          api={api}
          endpoint={endpoint}
          onCancel={() => setEditing(false)}
          onSaved={(e) => {
            setEditing(false);
            onChanged(e);
          }}
        />
      ) : (
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
      )}
      {canWrite && !editing ? (
        <div class="actions">
          <button type="button" class="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" class="button" onClick={() => setDialog('rotate')}>
            Rotate secret
          </button>
          {endpoint.enabled ? (
            <button type="button" class="button" disabled={busy} onClick={() => void setEnabled(false)}>
              Disable
            </button>
          ) : null}
          <button type="button" class="button danger" onClick={() => setDialog('delete')}>
            Delete
          </button>
        </div>
      ) : null}
      {dialog === 'rotate' ? (
        <Dialog title="Rotate the signing secret?" onClose={() => setDialog(null)}>
          <p>
            A new secret is created and shown once. For 24 hours every delivery is signed with both the new and the
            previous secret, so your receiver keeps verifying while you update its configuration.
          </p>
          <FormError message={failure?.message ?? null} />
          <div class="actions">
            <button type="button" class="button" onClick={() => setDialog(null)}>
              Cancel
            </button>
            <button
              type="button"
              class="button primary"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                const result = await settle(api.POST('/v1/dashboard/webhook-endpoint/rotate-secret'));
                setBusy(false);
                if (result.ok) {
                  setFailure(null);
                  setDialog(null);
                  onRotated(result.data.endpoint, result.data.secret, result.data.previousSecretExpiresAt);
                } else setFailure(result.failure);
              }}
            >
              Rotate secret
            </button>
          </div>
        </Dialog>
      ) : null}
      {dialog === 'delete' ? (
        <TypedConfirmDialog
          title="Delete this endpoint?"
          explanation={
            <p>
              Deleting takes effect now and cannot be undone: pending deliveries are abandoned and the secrets
              destroyed. The delivery log stays.
            </p>
          }
          expected={endpoint.url}
          alternative="delete"
          action="Delete endpoint"
          busy={busy}
          error={failure?.message ?? null}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            setBusy(true);
            const result = await settle(api.DELETE('/v1/dashboard/webhook-endpoint'));
            setBusy(false);
            if (result.ok) {
              setDialog(null);
              onDeleted();
            } else setFailure(result.failure);
          }}
        />
      ) : null}
    </section>
  );
}

function EditEndpoint({
  api,
  endpoint,
  onCancel,
  onSaved,
}: {
  api: DashboardClient;
  endpoint: WebhookEndpoint;
  onCancel: () => void;
  onSaved: (e: WebhookEndpoint) => void;
}) {
  const [url, setUrl] = useState(endpoint.url);
  const [types, setTypes] = useState<WebhookEventType[]>([...endpoint.eventTypes]);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const noTypes = types.length === 0 ? 'Choose at least one event type.' : null;
  return (
    <form
      noValidate
      aria-label="Edit the endpoint"
      onSubmit={async (e) => {
        e.preventDefault();
        if (noTypes) return;
        setBusy(true);
        const result = await settle(
          api.PATCH('/v1/dashboard/webhook-endpoint', { body: { url: url.trim(), eventTypes: types } }),
        );
        setBusy(false);
        if (result.ok) onSaved(result.data);
        else setFailure(result.failure);
      }}
    >
      <FormError message={formMessage(failure, ['url', 'eventTypes'])} />
      <UrlField value={url} onInput={setUrl} error={fieldMessage(failure, 'url')} mode={endpoint.mode} />
      <EventTypeFields selected={types} onChange={setTypes} error={noTypes ?? fieldMessage(failure, 'eventTypes')} />
      <div class="actions">
        <button type="button" class="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="button primary" disabled={busy || !!noTypes}>
          Save
        </button>
      </div>
    </form>
  );
}

function TestEvent({ api, disabled, onSent }: { api: DashboardClient; disabled: boolean; onSent: () => void }) {
  const [type, setType] = useState<WebhookEventType>('payment.succeeded');
  const [failure, setFailure] = useState<Failure | null>(null);
  const [sent, setSent] = useState<WebhookDelivery | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <form
      class="card"
      aria-labelledby={`${id}-title`}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        const result = await settle(api.POST('/v1/dashboard/webhook-endpoint/test', { body: { type } }));
        setBusy(false);
        if (result.ok) {
          setFailure(null);
          setSent(result.data.delivery);
          onSent();
        } else {
          setSent(null);
          setFailure(result.failure);
        }
      }}
    >
      <h2 id={`${id}-title`}>Send a test event</h2>
      <p class="muted">
        Sample data (live: false), signed like a real event. Checks reachability and your signature check.
      </p>
      <div class="field">
        <label for={id}>Event type</label>
        <select id={id} class="input" value={type} onChange={(e) => setType(e.currentTarget.value as WebhookEventType)}>
          {EVENT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <FormError message={failure?.message ?? null} />
      {sent ? (
        <Notice tone={sent.status === 'failed' ? 'warn' : 'ok'}>
          Test event sent: delivery <code>{sent.id}</code> is {sent.status}
          {sent.attempts?.length
            ? `, first attempt ${sent.attempts[0]!.status === null ? 'got no HTTP answer' : `answered HTTP ${sent.attempts[0]!.status}`}`
            : ''}
          .
        </Notice>
      ) : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy || disabled}>
          Send test event
        </button>
      </div>
    </form>
  );
}

function Recovery({ api, disabled, onDone }: { api: DashboardClient; disabled: boolean; onDone: () => void }) {
  const today = new Date();
  const earliest = new Date(today.getFullYear(), today.getMonth(), today.getDate() - REPLAY_WINDOW_DAYS + 1);
  const [resendSince, setResendSince] = useState(dateInputValue(today));
  const [replaySince, setReplaySince] = useState(dateInputValue(today));
  const [resendFailure, setResendFailure] = useState<Failure | null>(null);
  const [replayFailure, setReplayFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const resendId = useId();
  const replayId = useId();

  const run = async (kind: 'resend' | 'replay') => {
    const since = localMidnight(kind === 'resend' ? resendSince : replaySince);
    const setFailure = kind === 'resend' ? setResendFailure : setReplayFailure;
    if (since === null) {
      setFailure({ status: 0, code: 'params_validation', message: 'Choose a date.', param: 'since' });
      return;
    }
    setBusy(true);
    setDone(null);
    if (kind === 'resend') {
      const result = await settle(api.POST('/v1/dashboard/webhook-deliveries/resend-failed', { body: { since } }));
      if (result.ok) {
        setResendFailure(null);
        setDone(`${result.data.resent} failed ${result.data.resent === 1 ? 'delivery' : 'deliveries'} sent again.`);
        onDone();
      } else setResendFailure(result.failure);
    } else {
      const result = await settle(api.POST('/v1/dashboard/webhook-events/replay', { body: { since } }));
      if (result.ok) {
        setReplayFailure(null);
        setDone(`${result.data.replayed} missed ${result.data.replayed === 1 ? 'event' : 'events'} replayed.`);
        onDone();
      } else setReplayFailure(result.failure);
    }
    setBusy(false);
  };

  return (
    <section class="card" aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recover after an outage</h2>
      <form
        class="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void run('resend');
        }}
      >
        <div class="field">
          <label for={resendId}>Resend every failed delivery since</label>
          <input
            id={resendId}
            class="input"
            type="date"
            value={resendSince}
            max={dateInputValue(today)}
            aria-describedby={resendFailure ? `${resendId}-error` : undefined}
            onInput={(e) => setResendSince(e.currentTarget.value)}
          />
          <FieldError id={`${resendId}-error`} message={resendFailure?.message ?? null} />
        </div>
        <button type="submit" class="button" disabled={busy || disabled}>
          Resend failed
        </button>
      </form>
      <form
        class="inline-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void run('replay');
        }}
      >
        <div class="field">
          <label for={replayId}>Replay events the endpoint never received, since</label>
          <input
            id={replayId}
            class="input"
            type="date"
            value={replaySince}
            min={dateInputValue(earliest)}
            max={dateInputValue(today)}
            aria-describedby={`${replayId}-hint${replayFailure ? ` ${replayId}-error` : ''}`}
            onInput={(e) => setReplaySince(e.currentTarget.value)}
          />
          <p class="hint" id={`${replayId}-hint`}>
            At most {REPLAY_WINDOW_DAYS} days back.
          </p>
          <FieldError id={`${replayId}-error`} message={replayFailure?.message ?? null} />
        </div>
        <button type="submit" class="button" disabled={busy || disabled}>
          Replay missed events
        </button>
      </form>
      {done ? <Notice tone="ok">{done}</Notice> : null}
    </section>
  );
}

function DeliveryLog({
  api,
  canWrite,
  version,
  mode,
  onRefresh,
}: {
  api: DashboardClient;
  canWrite: boolean;
  version: number;
  mode: string;
  /** "Refresh" also re-reads the endpoint (its failing and disabled state). */
  onRefresh: () => void;
}) {
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  const [eventType, setEventType] = useState<WebhookEventType | ''>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<{ data: WebhookDelivery[]; hasMore: boolean; nextCursor: string | null } | null>(
    null,
  );
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** Bumped by "Refresh", and every few seconds while a shown delivery is pending. */
  const [tick, setTick] = useState(0);
  const statusId = useId();
  const typeId = useId();
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    let live = true;
    setBusy(true);
    void settle(
      api.GET('/v1/dashboard/webhook-deliveries', {
        params: {
          query: {
            limit: 20,
            ...(status ? { status } : {}),
            ...(eventType ? { eventType } : {}),
            ...(cursor ? { startingAfter: cursor } : {}),
          },
        },
      }),
    ).then((result) => {
      if (!live) return;
      setBusy(false);
      if (result.ok) {
        setPage(result.data);
        setFailure(null);
      } else setFailure(result.failure);
    });
    return () => {
      live = false;
    };
  }, [api, status, eventType, cursor, version, mode, tick]);

  const pending = !!page?.data.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setTick((t) => t + 1), 5000);
    return () => clearTimeout(timer);
  }, [pending, page]);

  const resetPaging = () => setCursors([undefined]);

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="card-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button
          type="button"
          class="button small"
          disabled={busy}
          onClick={() => {
            setTick((t) => t + 1);
            onRefresh();
          }}
        >
          Refresh
        </button>
      </div>
      <div class="filters">
        <div class="field">
          <label for={statusId}>Status</label>
          <select
            id={statusId}
            class="input"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value as WebhookDeliveryStatus | '');
              resetPaging();
            }}
          >
            <option value="">Any status</option>
            {DELIVERY_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={typeId}>Event type</label>
          <select
            id={typeId}
            class="input"
            value={eventType}
            onChange={(e) => {
              setEventType(e.currentTarget.value as WebhookEventType | '');
              resetPaging();
            }}
          >
            <option value="">Any event type</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FormError message={failure?.message ?? null} />
      {notice ? <Notice tone="ok">{notice}</Notice> : null}
      {page === null ? (
        <Loading what="deliveries" />
      ) : page.data.length === 0 ? (
        <p class="empty">No delivery matches{status || eventType ? ' these filters' : ' yet'}.</p>
      ) : (
        <div class="table-wrap">
          <table class="table" aria-describedby="deliveries-title">
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Attempts
                </th>
                <th scope="col">Delivery</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data.map((d) => (
                <DeliveryRow
                  key={d.id}
                  api={api}
                  delivery={d}
                  canWrite={canWrite}
                  open={open === d.id}
                  onToggle={() => setOpen(open === d.id ? null : d.id)}
                  onResent={(resent) => {
                    setNotice(`Delivery ${resent.id} created: the event is sent again.`);
                    resetPaging();
                    setStatus('');
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        label="Deliveries pages"
        page={cursors.length - 1}
        hasMore={!!page?.hasMore}
        busy={busy}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => {
          if (page?.nextCursor) setCursors([...cursors, page.nextCursor]);
        }}
      />
    </section>
  );
}

function DeliveryRow({
  api,
  delivery,
  canWrite,
  open,
  onToggle,
  onResent,
}: {
  api: DashboardClient;
  delivery: WebhookDelivery;
  canWrite: boolean;
  open: boolean;
  onToggle: () => void;
  onResent: (d: WebhookDelivery) => void;
}) {
  const [detail, setDetail] = useState<WebhookDelivery | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const detailId = `delivery-${delivery.id}`;

  useEffect(() => {
    if (!open) return;
    let live = true;
    void settle(
      api.GET('/v1/dashboard/webhook-deliveries/{deliveryId}', { params: { path: { deliveryId: delivery.id } } }),
    ).then((result) => {
      if (!live) return;
      if (result.ok) setDetail(result.data);
      else setFailure(result.failure);
    });
    return () => {
      live = false;
    };
  }, [api, open, delivery.id]);

  return (
    <>
      <tr data-delivery={delivery.id}>
        <td>
          <Time value={delivery.createdAt} />
        </td>
        <td>
          <code>{delivery.eventType}</code>
        </td>
        <td>{delivery.trigger}</td>
        <td>
          <StatusBadge status={delivery.status} />
        </td>
        <td class="num">{delivery.attemptCount}</td>
        <td>
          <code title={delivery.id}>{shortId(delivery.id)}</code>
        </td>
        <td class="row-actions">
          <button type="button" class="button small" aria-expanded={open} aria-controls={detailId} onClick={onToggle}>
            {open ? 'Hide attempts' : 'Attempts'}
            <span class="visually-hidden"> of delivery {delivery.id}</span>
          </button>
          {canWrite ? (
            <button
              type="button"
              class="button small"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                const result = await settle(
                  api.POST('/v1/dashboard/webhook-deliveries/{deliveryId}/resend', {
                    params: { path: { deliveryId: delivery.id } },
                  }),
                );
                setBusy(false);
                if (result.ok) onResent(result.data);
                else setFailure(result.failure);
              }}
            >
              Resend<span class="visually-hidden"> delivery {delivery.id}</span>
            </button>
          ) : null}
        </td>
      </tr>
      {open || failure ? (
        <tr id={detailId} class="detail-row">
          <td colSpan={7}>
            <FormError message={failure?.message ?? null} />
            {open ? (
              detail ? (
                <div>
                  <p class="muted">
                    Event <code>{detail.eventId}</code>, payment <code>{detail.paymentId}</code>
                    {detail.nextAttemptAt !== null ? (
                      <>
                        , next attempt <Time value={detail.nextAttemptAt} />
                      </>
                    ) : null}
                  </p>
                  <AttemptList attempts={detail.attempts ?? []} pruned={detail.attemptsPruned === true} />
                </div>
              ) : failure ? null : (
                <Loading what="attempts" />
              )
            ) : null}
          </td>
        </tr>
      ) : null}
    </>
  );
}

function Sources({ api }: { api: DashboardClient }) {
  const [addresses, setAddresses] = useState<string[] | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  useEffect(() => {
    void getWebhookSources(api).then((result) => {
      if (result.ok) setAddresses(result.data.addresses);
      else setFailure(result.failure);
    });
  }, [api]);
  return (
    <section class="card" aria-labelledby="sources-title">
      <h2 id="sources-title">Where deliveries come from</h2>
      {failure ? (
        <p class="muted">The source addresses could not be read: {failure.message}</p>
      ) : addresses === null ? (
        <Loading what="the source addresses" />
      ) : addresses.length === 0 ? (
        <p class="muted">
          This server does not publish its source addresses (PAYGATE_WEBHOOK_SOURCE_ADDRESSES is not set); ask its
          operator before allow-listing deliveries by address.
        </p>
      ) : (
        <>
          <p>Deliveries come from these addresses; allow them through your firewall:</p>
          <ul class="inline-list" data-testid="webhook-sources">
            {addresses.map((a) => (
              <li key={a}>
                <code>{a}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
