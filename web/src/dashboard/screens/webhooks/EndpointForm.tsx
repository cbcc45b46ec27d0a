/** The endpoint's URL and event types: the form that adds an endpoint and the one that edits it. */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { fieldMessage, type Failure } from '../../../kit/failure.js';
import { Field, FieldError, FormError } from '../../../kit/Field.js';
import { request, useAction } from '../../../kit/request.js';
import {
  invoiceEventTypeValues,
  paymentOptInEventTypeValues,
  webhookEventTypeValues as DEFAULT_TYPES,
} from '../../../generated/dashboard.js';
import type { WebhookEndpoint } from '../parts/webhookTypes.js';

/** An endpoint's types: the payment types, then the opt-in ones (docs/decisions.md §26.26, §30.12), unchecked. */
type WebhookEventType = WebhookEndpoint['eventTypes'][number];

const EVENT_TYPES: readonly WebhookEventType[] = [
  ...DEFAULT_TYPES,
  ...paymentOptInEventTypeValues,
  ...invoiceEventTypeValues,
];

function EventTypeFields(props: {
  selected: readonly WebhookEventType[];
  onChange(types: WebhookEventType[]): void;
  error: string | null;
}) {
  const errorId = useId();
  return (
    <fieldset class="fieldset" aria-describedby={props.error ? errorId : undefined}>
      <legend>Event types</legend>
      <div class="checks">
        {EVENT_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="eventTypes"
              value={type}
              checked={props.selected.includes(type)}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                props.onChange(EVENT_TYPES.filter((t) => (t === type ? on : props.selected.includes(t))));
              }}
            />
            <code>{type}</code>
          </label>
        ))}
      </div>
      <FieldError id={errorId} message={props.error} />
    </fieldset>
  );
}

/** URL and event types; `save` sends them (create or update) and throws the server's refusal. */
function EndpointFields(props: {
  mode: string;
  initial: { url: string; eventTypes: readonly WebhookEventType[] };
  submitLabel: string;
  label: string;
  onCancel?(): void;
  save(body: { url: string; eventTypes: WebhookEventType[] }): Promise<void>;
  children?: ComponentChildren;
  class?: string;
}) {
  const [url, setUrl] = useState(props.initial.url);
  const [types, setTypes] = useState<WebhookEventType[]>([...props.initial.eventTypes]);
  const save = useAction(() => props.save({ url: url.trim(), eventTypes: types }));
  const noTypes = types.length === 0 ? 'Choose at least one event type.' : null;
  const failure: Failure | null = save.failure;
  return (
    <form
      class={props.class}
      noValidate
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        if (!noTypes) void save.run();
      }}
    >
      {props.children}
      <FormError failure={failure} fields={['url', 'eventTypes']} />
      <Field
        label="Endpoint URL"
        name="url"
        type="url"
        required
        value={url}
        placeholder="https://shop.example.com/webhooks/paygate"
        failure={failure}
        hint={`HTTPS to a public address${props.mode === 'test' ? '; in test mode, http:// on loopback when the server allows it' : ''}.`}
        onInput={(e) => setUrl(e.currentTarget.value)}
      />
      <EventTypeFields selected={types} onChange={setTypes} error={noTypes ?? fieldMessage(failure, 'eventTypes')} />
      <div class="actions">
        {props.onCancel ? (
          <button type="button" class="button secondary" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" class="button primary" disabled={save.busy || !!noTypes}>
          {props.submitLabel}
        </button>
      </div>
    </form>
  );
}

export function CreateEndpoint(props: { mode: string; onCreated(endpoint: WebhookEndpoint, secret: string): void }) {
  const { api } = useDashboard();
  return (
    <EndpointFields
      class="card"
      label="Add an endpoint"
      mode={props.mode}
      initial={{ url: '', eventTypes: DEFAULT_TYPES }}
      submitLabel="Add endpoint"
      save={async (body) => {
        const created = await request(api.POST('/v1/dashboard/webhook-endpoint', { body }));
        props.onCreated(created.endpoint, created.secret);
      }}
    >
      <h2>Add an endpoint</h2>
      <p class="muted">
        This merchant has no {props.mode}-mode endpoint yet. Events are sent to the URL you give here.
      </p>
    </EndpointFields>
  );
}

export function EditEndpoint(props: {
  endpoint: WebhookEndpoint;
  onCancel(): void;
  onSaved(e: WebhookEndpoint): void;
}) {
  const { api } = useDashboard();
  return (
    <EndpointFields
      label="Edit the endpoint"
      mode={props.endpoint.mode}
      initial={props.endpoint}
      submitLabel="Save"
      onCancel={props.onCancel}
      save={async (body) => props.onSaved(await request(api.PATCH('/v1/dashboard/webhook-endpoint', { body })))}
    />
  );
}
