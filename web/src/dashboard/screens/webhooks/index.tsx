/**
 * Webhooks: the endpoint of the current mode (create → secret shown once; edit, rotate, disable/enable, delete behind
 * a typed confirmation; the banner when deliveries fail or it was disabled), a test event, the delivery log with each
 * delivery's attempts and a resend, the bulk recoveries (resend failed since a date, replay missed events) and the
 * addresses deliveries come from. Viewers see everything and change nothing.
 */
import { useCallback, useState } from 'preact/hooks';
import { useDashboard } from '../../context.js';
import { FailureError } from '../../../kit/failure.js';
import { Loaded } from '../../../kit/Loading.js';
import { request, useLoad } from '../../../kit/request.js';
import { SecretDialog } from '../../../kit/SecretDialog.js';
import { Time } from '../../../kit/Time.js';
import { getWebhookSources } from '../parts/requests.js';
import { DeliveryLog } from './DeliveryLog.js';
import { CreateEndpoint, EndpointCard } from './EndpointCard.js';
import { Recovery, TestEvent } from './Recovery.js';

interface ShownSecret {
  title: string;
  secret: string;
  /** Unix seconds until which the previous secret still signs (after a rotation). */
  previousValidUntil?: number;
}

export function Webhooks() {
  const { api, mode, role } = useDashboard();
  const canWrite = role !== 'viewer';
  const [load, reload, show] = useLoad(async () => {
    try {
      return await request(api.GET('/v1/dashboard/webhook-endpoint'));
    } catch (err) {
      // No endpoint yet: the screen offers to create one.
      if (err instanceof FailureError && err.failure.status === 404) return null;
      throw err;
    }
  }, [api, mode]);
  const [shown, setShown] = useState<ShownSecret | null>(null);
  /** Bumped after anything that creates deliveries, so the log reloads. */
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const refreshDeliveries = useCallback(() => setDeliveriesVersion((v) => v + 1), []);

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
      <Loaded load={load} what="the endpoint">
        {(endpoint) => {
          if (endpoint === null) {
            return canWrite ? (
              <CreateEndpoint
                mode={mode}
                onCreated={(created, secret) => {
                  show(created);
                  setShown({ title: 'Your endpoint’s signing secret', secret });
                }}
              />
            ) : (
              <div class="card">
                <h2>No endpoint</h2>
                <p>This merchant has no {mode}-mode webhook endpoint. A developer or an owner can add one.</p>
              </div>
            );
          }
          return (
            <>
              <EndpointCard
                endpoint={endpoint}
                canWrite={canWrite}
                onChanged={show}
                onDeleted={() => {
                  show(null);
                  refreshDeliveries();
                }}
                onRotated={(e, secret, previousValidUntil) => {
                  show(e);
                  setShown({ title: 'Your endpoint’s new signing secret', secret, previousValidUntil });
                }}
              />
              {canWrite ? (
                <div class="grid-2">
                  <TestEvent disabled={!endpoint.enabled} onSent={refreshDeliveries} />
                  <Recovery disabled={!endpoint.enabled} onDone={refreshDeliveries} />
                </div>
              ) : null}
            </>
          );
        }}
      </Loaded>
      <DeliveryLog
        canWrite={canWrite && load.state === 'ready' && !!load.data?.enabled}
        version={deliveriesVersion}
        onRefresh={reload}
      />
      <Sources />
      {shown ? (
        <SecretDialog
          title={shown.title}
          intro={
            <p>
              Store it in your receiver's configuration now; if you lose it, rotate it. Your receiver checks every
              delivery's signature with it.
            </p>
          }
          secret={shown.secret}
          onClose={() => setShown(null)}
        >
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

function Sources() {
  const { api } = useDashboard();
  const [load] = useLoad(() => getWebhookSources(api), [api]);
  return (
    <section class="card" aria-labelledby="sources-title">
      <h2 id="sources-title">Where deliveries come from</h2>
      {load.state === 'failed' ? (
        <p class="muted">The source addresses could not be read: {load.failure.message}</p>
      ) : (
        <Loaded load={load} what="the source addresses">
          {({ addresses }) =>
            addresses.length === 0 ? (
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
            )
          }
        </Loaded>
      )}
    </section>
  );
}
