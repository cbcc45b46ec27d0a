/**
 * Webhook endpoints: at most one per merchant and mode, each with its own signing secret (`whsec_` + base64 of 32
 * random bytes), sealed at rest and revealed only when created or rotated.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import {
  abandonPendingDeliveries,
  findActiveEndpoint,
  insertEndpoint,
  updateEndpoint,
  type EndpointRow,
} from '../db/queries/webhooks.js';
import type { WebhookDeps } from './deps.js';
import { ROTATION_OVERLAP_MS } from './schedule.js';
import { checkWebhookUrl, WebhookUrlError } from './ssrf.js';

export const EVENT_TYPES = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
] as const;

export type Mode = 'test' | 'live';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function assertUrl(deps: WebhookDeps, url: string, mode: Mode): Promise<void> {
  try {
    await checkWebhookUrl(url, {
      mode,
      allowLoopback: deps.config.webhookAllowLoopback,
      resolve: deps.webhookOptions.resolve,
    });
  } catch (err) {
    if (err instanceof WebhookUrlError) throw new ApiError('params_validation', `url: ${err.message}`);
    throw err;
  }
}

function normaliseTypes(types: readonly string[] | undefined): string[] {
  const list = types ?? EVENT_TYPES;
  if (list.length === 0) throw new ApiError('params_validation', 'eventTypes: choose at least one event type.');
  const unknown = list.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown) throw new ApiError('params_validation', `eventTypes: unknown event type ${unknown}.`);
  return [...new Set(list)];
}

export async function createEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  input: { url: string; eventTypes?: readonly string[] },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  await assertUrl(deps, input.url, mode);
  const eventTypes = normaliseTypes(input.eventTypes);
  const now = deps.now();
  const id = `whe_${randomBase62(16)}`;
  const secret = newSecret();
  const endpoint: EndpointRow = {
    id,
    merchant_id: merchantId,
    mode,
    url: input.url,
    event_types: eventTypes,
    enabled: true,
    disabled_reason: null,
    secret_sealed: deps.secretBox.seal(secret, id),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    secret_rotated_at: now,
    failing_since: null,
    created_at: now,
    deleted_at: null,
  };
  try {
    await deps.db.knex.transaction(async (trx) => {
      if (await findActiveEndpoint(trx, merchantId, mode))
        throw new ApiError('invalid_state', `A ${mode}-mode endpoint already exists; rotate, update or delete it.`);
      await insertEndpoint(trx, endpoint);
    });
  } catch (err) {
    // The partial unique index decides a race between two creates.
    if (!(err instanceof ApiError) && /unique|UNIQUE/.test(String((err as Error).message))) {
      throw new ApiError('invalid_state', `A ${mode}-mode endpoint already exists; rotate, update or delete it.`);
    }
    throw err;
  }
  return { endpoint, secret };
}

export async function requireEndpoint(deps: WebhookDeps, merchantId: string, mode: Mode): Promise<EndpointRow> {
  const endpoint = await findActiveEndpoint(deps.db.knex, merchantId, mode);
  if (!endpoint)
    throw new ApiError('invalid_state', `There is no ${mode}-mode webhook endpoint; create one first.`, {
      status: 404,
    });
  return endpoint;
}

export async function updateEndpointSettings(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  input: { url?: string; eventTypes?: readonly string[]; enabled?: boolean },
): Promise<EndpointRow> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const change: Partial<EndpointRow> = {};
  if (input.url !== undefined) {
    await assertUrl(deps, input.url, mode);
    change.url = input.url;
  }
  if (input.eventTypes !== undefined) change.event_types = normaliseTypes(input.eventTypes);
  if (input.enabled === true) Object.assign(change, { enabled: true, disabled_reason: null, failing_since: null });
  if (input.enabled === false) Object.assign(change, { enabled: false, disabled_reason: 'Disabled by the merchant.' });
  await updateEndpoint(deps.db.knex, endpoint.id, change);
  return { ...endpoint, ...change };
}

/** The old secret keeps verifying for 24 hours; deliveries in the overlap carry both signatures. */
export async function rotateSecret(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const now = deps.now();
  const secret = newSecret();
  const previous = deps.secretBox.open(endpoint.secret_sealed, endpoint.id);
  const change = {
    secret_sealed: deps.secretBox.seal(secret, endpoint.id),
    previous_secret_sealed: deps.secretBox.seal(previous, `${endpoint.id}:previous`),
    previous_secret_expires_at: now + ROTATION_OVERLAP_MS,
    secret_rotated_at: now,
  };
  await updateEndpoint(deps.db.knex, endpoint.id, change);
  return { endpoint: { ...endpoint, ...change }, secret };
}

/** Immediate and irreversible: pending deliveries are abandoned and the endpoint is never used again. */
export async function deleteEndpoint(deps: WebhookDeps, merchantId: string, mode: Mode): Promise<void> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  await deps.db.knex.transaction(async (trx) => {
    const now = deps.now();
    await updateEndpoint(trx, endpoint.id, { deleted_at: now, enabled: false, disabled_reason: 'Deleted.' });
    await abandonPendingDeliveries(trx, endpoint.id, now);
  });
}
