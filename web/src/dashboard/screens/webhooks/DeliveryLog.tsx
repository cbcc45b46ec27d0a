/** The delivery log: filters, a page of deliveries, each one's attempts on demand and a resend. */
import { useEffect, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { Notice, StatusBadge } from '../../../kit/Badge.js';
import { FormError, SelectField } from '../../../kit/Field.js';
import { Loaded, Loading } from '../../../kit/Loading.js';
import { Pager, useCursors } from '../../../kit/Pager.js';
import { loaded, request, useAction, useLoad } from '../../../kit/request.js';
import { Time } from '../../../kit/Time.js';
import {
  webhookDeliveryStatusValues as DELIVERY_STATUSES,
  webhookEventTypeValues as EVENT_TYPES,
} from '../../../generated/dashboard.js';
import { AttemptList } from '../parts/AttemptList.js';
import { shortId } from '../parts/format.js';
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
                  {shown.data.map((d) => (
                    <DeliveryRow
                      key={d.id}
                      delivery={d}
                      canWrite={props.canWrite}
                      open={open === d.id}
                      onToggle={() => setOpen(open === d.id ? null : d.id)}
                      onResent={(resent) => {
                        setNotice(`Delivery ${resent.id} created: the event is sent again.`);
                        resetPaging();
                        setStatus('');
                        reload();
                      }}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      <Pager label="Deliveries pages" cursors={cursors} load={load} />
    </section>
  );
}

function DeliveryRow(props: {
  delivery: WebhookDelivery;
  canWrite: boolean;
  open: boolean;
  onToggle(): void;
  onResent(d: WebhookDelivery): void;
}) {
  const { api } = useDashboard();
  const { delivery } = props;
  const detailId = `delivery-${delivery.id}`;
  const path = { params: { path: { deliveryId: delivery.id } } };
  const [detail] = useLoad(
    async () => (props.open ? request(api.GET('/v1/dashboard/webhook-deliveries/{deliveryId}', path)) : null),
    [api, props.open, delivery.id],
  );
  const resend = useAction(async () =>
    props.onResent(await request(api.POST('/v1/dashboard/webhook-deliveries/{deliveryId}/resend', path))),
  );

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
          <button
            type="button"
            class="button secondary small"
            aria-expanded={props.open}
            aria-controls={detailId}
            onClick={props.onToggle}
          >
            {props.open ? 'Hide attempts' : 'Attempts'}
            <span class="visually-hidden"> of delivery {delivery.id}</span>
          </button>
          {props.canWrite ? (
            <button
              type="button"
              class="button secondary small"
              disabled={resend.busy}
              onClick={() => void resend.run()}
            >
              Resend<span class="visually-hidden"> delivery {delivery.id}</span>
            </button>
          ) : null}
        </td>
      </tr>
      {props.open || resend.failure ? (
        <tr id={detailId} class="detail-row">
          <td colSpan={7}>
            <FormError failure={resend.failure} />
            {props.open ? (
              <Loaded load={detail} what="attempts">
                {(d) =>
                  d ? (
                    <div>
                      <p class="muted">
                        Event <code>{d.eventId}</code>, payment <code>{d.paymentId}</code>
                        {d.nextAttemptAt !== null ? (
                          <>
                            , next attempt <Time value={d.nextAttemptAt} />
                          </>
                        ) : null}
                      </p>
                      <AttemptList attempts={d.attempts ?? []} pruned={d.attemptsPruned === true} />
                    </div>
                  ) : (
                    <Loading what="attempts" />
                  )
                }
              </Loaded>
            ) : null}
          </td>
        </tr>
      ) : null}
    </>
  );
}
