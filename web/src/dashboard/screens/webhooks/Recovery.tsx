/** A test event, and the recoveries after an outage: resend what failed, replay what was never sent. */
import { useId, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { Notice } from '../../../kit/Badge.js';
import { FailureError, localFailure } from '../../../kit/failure.js';
import { Field, FormError, SelectField } from '../../../kit/Field.js';
import { request, useAction } from '../../../kit/request.js';
import { webhookEventTypeValues as EVENT_TYPES } from '../../../generated/dashboard.js';
import { dateInputValue, localMidnight } from '../parts/format.js';
import { REPLAY_WINDOW_DAYS, type WebhookDelivery, type WebhookEventType } from '../parts/webhookTypes.js';

export function TestEvent(props: { disabled: boolean; onSent(): void }) {
  const { api } = useDashboard();
  const [type, setType] = useState<WebhookEventType>('payment.succeeded');
  const [sent, setSent] = useState<WebhookDelivery | null>(null);
  const send = useAction(async () => {
    setSent(null);
    setSent((await request(api.POST('/v1/dashboard/webhook-endpoint/test', { body: { type } }))).delivery);
    props.onSent();
  });
  const id = useId();
  const first = sent?.attempts?.[0];
  return (
    <form
      class="card"
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        void send.run();
      }}
    >
      <h2 id={`${id}-title`}>Send a test event</h2>
      <p class="muted">
        Sample data (live: false), signed like a real event. Checks reachability and your signature check.
      </p>
      <SelectField
        label="Event type"
        value={type}
        options={EVENT_TYPES}
        onChange={(v) => {
          if (v) setType(v);
        }}
      />
      <FormError failure={send.failure} />
      {sent ? (
        <Notice tone={sent.status === 'failed' ? 'warn' : 'ok'}>
          Test event sent: delivery <code>{sent.id}</code> is {sent.status}
          {first
            ? `, first attempt ${first.status === null ? 'got no HTTP answer' : `answered HTTP ${first.status}`}`
            : ''}
          .
        </Notice>
      ) : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={send.busy || props.disabled}>
          Send test event
        </button>
      </div>
    </form>
  );
}

/** One date and one button: resend failed deliveries, or replay missed events, since that local midnight. */
function SinceForm(props: {
  label: string;
  button: string;
  min?: string;
  hint?: string;
  disabled: boolean;
  send(since: number): Promise<string>;
  onDone(message: string): void;
}) {
  const today = dateInputValue(new Date());
  const [date, setDate] = useState(today);
  const action = useAction(async () => {
    const since = localMidnight(date);
    if (since === null) throw new FailureError(localFailure('Choose a date.', 'since'));
    props.onDone(await props.send(since));
  });
  return (
    <form
      class="inline-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <Field
        label={props.label}
        name="since"
        type="date"
        value={date}
        min={props.min}
        max={today}
        hint={props.hint}
        failure={action.failure}
        error={action.failure?.message ?? null}
        onInput={(e) => setDate(e.currentTarget.value)}
      />
      <button type="submit" class="button secondary" disabled={action.busy || props.disabled}>
        {props.button}
      </button>
    </form>
  );
}

export function Recovery(props: { disabled: boolean; onDone(): void }) {
  const { api } = useDashboard();
  const [done, setDone] = useState<string | null>(null);
  const now = new Date();
  const earliest = new Date(now.getFullYear(), now.getMonth(), now.getDate() - REPLAY_WINDOW_DAYS + 1);
  const finished = (message: string) => {
    setDone(message);
    props.onDone();
  };
  return (
    <section class="card" aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recover after an outage</h2>
      <SinceForm
        label="Resend every failed delivery since"
        button="Resend failed"
        disabled={props.disabled}
        onDone={finished}
        send={async (since) => {
          const { resent } = await request(
            api.POST('/v1/dashboard/webhook-deliveries/resend-failed', { body: { since } }),
          );
          return `${resent} failed ${resent === 1 ? 'delivery' : 'deliveries'} sent again.`;
        }}
      />
      <SinceForm
        label="Replay events the endpoint never received, since"
        button="Replay missed events"
        min={dateInputValue(earliest)}
        hint={`At most ${REPLAY_WINDOW_DAYS} days back.`}
        disabled={props.disabled}
        onDone={finished}
        send={async (since) => {
          const { replayed } = await request(api.POST('/v1/dashboard/webhook-events/replay', { body: { since } }));
          return `${replayed} missed ${replayed === 1 ? 'event' : 'events'} replayed.`;
        }}
      />
      {done ? <Notice tone="ok">{done}</Notice> : null}
    </section>
  );
}
