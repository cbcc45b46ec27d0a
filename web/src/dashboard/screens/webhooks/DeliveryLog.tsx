/** The delivery log: filters, a page of deliveries, each one's attempts on demand and a resend. */
import { useEffect, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { Notice, StatusBadge } from '../../../kit/Badge.js';
import { FormError, SelectField } from '../../../kit/Field.js';
import { Loaded } from '../../../kit/Loading.js';
import { Pager, useCursors } from '../../../kit/Pager.js';
import { loaded, request, useAction, useLoad } from '../../../kit/request.js';
import { Table } from '../../../kit/Table.js';
import { Time } from '../../../kit/Time.js';
import {
  webhookDeliveryStatusValues as DELIVERY_STATUSES,
  webhookEventTypeValues as EVENT_TYPES,
} from '../../../generated/dashboard.js';
import { AttemptList } from '../parts/AttemptList.js';
import { shortId } from '../parts/format.js';
import { deliveryStatusFilterWord, deliveryStatusWord, deliveryTriggerWord } from '../parts/statusWords.js';
import type { WebhookDelivery, WebhookDeliveryStatus, WebhookEventType } from '../parts/webhookTypes.js';

export function DeliveryLog(props: {
  canWrite: boolean;
  /** Bumped by the screen after anything that creates deliveries. */
  version: number;
  /** "Refresh" also re-reads the endpoint (its failing and disabled state). */
  onRefresh(): void;
}) {
  const { api, mode } = useDashboard();
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  const [eventType, setEventType] = useState<WebhookEventType | ''>('');
  const cursors = useCursors();
  const [open, setOpen] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { cursor } = cursors;
  const [load, reload] = useLoad(
    () =>
      request(
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
      ),
    [api, status, eventType, cursor, props.version, mode],
  );
  const page = loaded(load);

  // A shown delivery still pending is read again every few seconds until it settles.
  const pending = !!page?.data.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(reload, 5000);
    return () => clearTimeout(timer);
  }, [pending, page]);

  const resetPaging = () => cursors.reset();
  const toggle = (id: string) => setOpen(open === id ? null : id);

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="card-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button
          type="button"
          class="button secondary small"
          disabled={load.state === 'loading'}
          onClick={() => {
            reload();
            props.onRefresh();
          }}
        >
          Refresh
        </button>
      </div>
      <div class="filters">
        <SelectField
          label="Status"
          value={status}
          options={DELIVERY_STATUSES}
          labelOf={(v) => deliveryStatusFilterWord(v)}
          any="Any status"
          onChange={(v) => {
            setStatus(v);
            resetPaging();
          }}
        />
        <SelectField
          label="Event type"
          value={eventType}
          options={EVENT_TYPES}
          any="Any event type"
          onChange={(v) => {
            setEventType(v);
            resetPaging();
          }}
        />
      </div>
      {notice ? <Notice tone="ok">{notice}</Notice> : null}
      <Loaded load={load} what="deliveries">
        {(shown) =>
          shown.data.length === 0 ? (
            <p class="empty">No delivery matches{status || eventType ? ' these filters' : ' yet'}.</p>
          ) : (
            <Table
              label="Deliveries"
              rows={shown.data}
              rowKey={(d) => d.id}
              rowData={(d) => ({ 'data-delivery': d.id })}
              open={(d) => toggle(d.id)}
              detail={(d) => (open === d.id ? <DeliveryAttempts deliveryId={d.id} /> : null)}
              columns={[
                { label: 'Created', cell: (d) => <Time value={d.createdAt} /> },
                { label: 'Event', cell: (d) => <code>{d.eventType}</code> },
                { label: 'Trigger', cell: (d) => deliveryTriggerWord(d.trigger) },
                {
                  label: 'Status',
                  cell: (d) => <StatusBadge status={d.status} label={deliveryStatusWord(d)} />,
                },
                { label: 'Attempts', num: true, cell: (d) => d.attemptCount },
                { label: 'Delivery', cell: (d) => <code title={d.id}>{shortId(d.id)}</code> },
                {
                  label: 'Actions',
                  hideLabel: true,
                  cell: (d) => (
                    <DeliveryActions
                      delivery={d}
                      canWrite={props.canWrite}
                      open={open === d.id}
                      onToggle={() => toggle(d.id)}
                      onResent={(resent) => {
                        setNotice(`Delivery ${resent.id} created: the event is sent again.`);
                        resetPaging();
                        setStatus('');
                        reload();
                      }}
                    />
                  ),
                },
              ]}
            />
          )
        }
      </Loaded>
      <Pager label="Deliveries pages" cursors={cursors} load={load} />
    </section>
  );
}

/** A delivery's buttons: its attempts shown or hidden in place, and a resend (its refusal shown beside it). */
function DeliveryActions(props: {
  delivery: WebhookDelivery;
  canWrite: boolean;
  open: boolean;
  onToggle(): void;
  onResent(d: WebhookDelivery): void;
}) {
  const { api } = useDashboard();
  const { delivery } = props;
  const resend = useAction(async () =>
    props.onResent(
      await request(
        api.POST('/v1/dashboard/webhook-deliveries/{deliveryId}/resend', {
          params: { path: { deliveryId: delivery.id } },
        }),
      ),
    ),
  );
  return (
    <>
      <span class="row-actions">
        <button
          type="button"
          class="button secondary small"
          aria-expanded={props.open}
          aria-controls={props.open ? attemptsId(delivery.id) : undefined}
          onClick={props.onToggle}
        >
          {props.open ? 'Hide attempts' : 'Attempts'}
          <span class="visually-hidden"> of delivery {delivery.id}</span>
        </button>
        {props.canWrite ? (
          <button type="button" class="button secondary small" disabled={resend.busy} onClick={() => void resend.run()}>
            Resend<span class="visually-hidden"> delivery {delivery.id}</span>
          </button>
        ) : null}
      </span>
      {resend.failure ? <FormError failure={resend.failure} /> : null}
    </>
  );
}

const attemptsId = (deliveryId: string) => `delivery-${deliveryId}`;

/** A delivery's event, payment, next attempt and attempts, read when the row is opened. */
function DeliveryAttempts(props: { deliveryId: string }) {
  const { api } = useDashboard();
  const [detail] = useLoad(
    () =>
      request(
        api.GET('/v1/dashboard/webhook-deliveries/{deliveryId}', {
          params: { path: { deliveryId: props.deliveryId } },
        }),
      ),
    [api, props.deliveryId],
  );
  return (
    <div id={attemptsId(props.deliveryId)}>
      <Loaded load={detail} what="attempts">
        {(d) => (
          <>
            <p class="muted">
              Event <code>{d.eventId}</code>, payment <code>{d.paymentId}</code>
              {d.nextAttemptAt !== null ? (
                <>
                  , next attempt <Time value={d.nextAttemptAt} />
                </>
              ) : null}
            </p>
            <AttemptList attempts={d.attempts ?? []} pruned={d.attemptsPruned === true} />
          </>
        )}
      </Loaded>
    </div>
  );
}
