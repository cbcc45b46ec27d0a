/**
 * Webhook endpoints: at most one per merchant and mode, each with its own signing secret (`whsec_` + base64 of 32
 * random bytes), sealed at rest and revealed only when created or rotated.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';
import { randomBase62 } from '../ids.js';
import {
  failPendingDeliveries,
  findActiveEndpoint,
  insertEndpoint,
  replaceSecret,
  updateEndpoint,
  type EndpointRow,
} from '../db/queries/webhooks.js';
import { invoiceEventTypeValues, paymentOptInEventTypeValues, webhookEventTypeValues } from '../generated/merchant.js';
import type { WebhookDeps } from './deliveryDeps.js';
import { ROTATION_OVERLAP_MS } from './schedule.js';
import { checkWebhookUrl, WebhookUrlError } from './ssrf.js';

// The contract's enums, generated with it, so a new event type cannot be missed here. An endpoint created without a
// list gets the seven payment types only: `payment.partially_paid` and the invoice events are opt-in
// (docs/decisions.md §26.26, §30.12).
export const DEFAULT_EVENT_TYPES = webhookEventTypeValues;
export const EVENT_TYPES: readonly string[] = [
  ...webhookEventTypeValues,
  ...paymentOptInEventTypeValues,
  ...invoiceEventTypeValues,
];

export type Mode = 'test' | 'live';

/** The contract's `disabledReason` texts (WebhookEndpoint.disabledReason). */
export const DISABLED_BY_MERCHANT = 'disabled by the merchant';
export const DISABLED_AFTER_FAILURES = '5 days of failed deliveries';

const MAX_URL_LENGTH = 2048;

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function assertUrl(deps: WebhookDeps, url: string, mode: Mode): Promise<void> {
  // The HTTP validator checks the length too; the CLI reaches this function without it.
  if (url.length > MAX_URL_LENGTH)
    throw new ApiError('params_validation', `url: must NOT have more than ${MAX_URL_LENGTH} characters.`, {
      param: 'url',
    });
  try {
    await checkWebhookUrl(url, {
      mode,
      allowLoopback: deps.config.webhookAllowLoopback,
      resolve: deps.webhookOptions.resolve,
    });
  } catch (err) {
    if (err instanceof WebhookUrlError) {
      throw new ApiError('params_validation', `url: ${err.message.charAt(0).toLowerCase()}${err.message.slice(1)}`, {
        param: 'url',
      });
    }
    throw err;
  }
}

/** The contract's rules for an event-type list, for callers that did not pass through its validator (the CLI). */
function checkTypes(types: readonly string[] | undefined): string[] {
  const list = [...(types ?? DEFAULT_EVENT_TYPES)];
  if (list.length === 0)
    throw new ApiError('params_validation', 'eventTypes: choose at least one event type.', { param: 'eventTypes' });
  const unknown = list.find((t) => !EVENT_TYPES.includes(t));
  if (unknown)
    throw new ApiError('params_validation', `eventTypes: unknown event type ${unknown}.`, { param: 'eventTypes' });
  if (new Set(list).size !== list.length)
    throw new ApiError('params_validation', 'eventTypes: an event type is listed twice.', { param: 'eventTypes' });
  return list;
}

const exists = (mode: Mode, id: string) =>
  new ApiError(
    'invalid_state',
    `A webhook endpoint (${id}) already exists for ${mode} mode. Update it, or delete it first.`,
  );

export async function createEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  input: { url: string; eventTypes?: readonly string[] },
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const eventTypes = checkTypes(input.eventTypes);
  await assertUrl(deps, input.url, mode);
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
    // When the current secret was set; the endpoint counts as rotated once it has had a previous secret.
    secret_rotated_at: now,
    failing_since: null,
    created_at: now,
    deleted_at: null,
  };
  try {
    await deps.db.knex.transaction(async (trx) => {
      const current = await findActiveEndpoint(trx, merchantId, mode);
      if (current) throw exists(mode, current.id);
      await insertEndpoint(trx, endpoint);
    });
  } catch (err) {
    // The partial unique index decides a race between two creates.
    if (!(err instanceof ApiError) && /unique|UNIQUE/.test(String((err as Error).message))) {
      const winner = await findActiveEndpoint(deps.db.knex, merchantId, mode);
      throw exists(mode, winner?.id ?? 'whe_…');
    }
    throw err;
  }
  return { endpoint, secret };
}

/**
 * The endpoint the request addresses. None is 404 `invalid_params`: no error code means "endpoint not found", and
 * 404 `invalid_params` is what an address naming nothing answers everywhere (docs/decisions.md §2).
 */
export async function requireEndpoint(deps: WebhookDeps, merchantId: string, mode: Mode): Promise<EndpointRow> {
  const endpoint = await findActiveEndpoint(deps.db.knex, merchantId, mode);
  if (!endpoint)
    throw new ApiError('invalid_params', `No webhook endpoint is registered for ${mode} mode.`, { status: 404 });
  return endpoint;
}

export const endpointDisabled = (endpoint: EndpointRow) =>
  new ApiError('invalid_state', `The webhook endpoint ${endpoint.id} is disabled. Enable it first.`);

/**
 * The endpoint a resend or replay goes to. Here the call is an action, not an address: with nothing to send to
 * (no endpoint, or a disabled one) it is refused as 409 `invalid_state`, as the contract says.
 */
export async function requireReceivingEndpoint(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
): Promise<EndpointRow> {
  const endpoint = await findActiveEndpoint(deps.db.knex, merchantId, mode);
  if (!endpoint) throw new ApiError('invalid_state', `No webhook endpoint is registered for ${mode} mode.`);
  if (!endpoint.enabled) throw endpointDisabled(endpoint);
  return endpoint;
}

export async function updateEndpointSettings(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
  input: { url?: string; eventTypes?: readonly string[]; enabled?: boolean },
): Promise<EndpointRow> {
  if (input.url === undefined && input.eventTypes === undefined && input.enabled === undefined)
    throw new ApiError('params_validation', 'Nothing to change: give url, eventTypes or enabled.');
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  const change: Partial<EndpointRow> = {};
  if (input.eventTypes !== undefined) change.event_types = checkTypes(input.eventTypes);
  if (input.url !== undefined) {
    await assertUrl(deps, input.url, mode);
    change.url = input.url;
  }
  // Setting the state the endpoint already has changes nothing (the contract's rule), so a repeat cannot reset
  // the failure clock or fail deliveries a second time.
  if (input.enabled === true && !endpoint.enabled)
    Object.assign(change, { enabled: true, disabled_reason: null, failing_since: null });
  const disabling = input.enabled === false && endpoint.enabled;
  if (disabling) Object.assign(change, { enabled: false, disabled_reason: DISABLED_BY_MERCHANT });
  if (Object.keys(change).length > 0) {
    await deps.db.knex.transaction(async (trx) => {
      await updateEndpoint(trx, endpoint.id, change);
      if (disabling) await failPendingDeliveries(trx, endpoint.id, deps.now());
    });
  }
  return { ...endpoint, ...change };
}

/**
 * The old secret keeps signing for 24 hours beside the new one. Rotating again inside that overlap makes the secret
 * being replaced the previous one, with a fresh 24 hours; the older one stops at once, so there are never more than
 * two signatures. The update is conditional on the secret it replaces, so of two concurrent rotations one wins and
 * the other retries on top of it: no secret is handed out that never signs.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  merchantId: string,
  mode: Mode,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  for (;;) {
    const endpoint = await requireEndpoint(deps, merchantId, mode);
    const now = deps.now();
    const secret = newSecret();
    const replaced = deps.secretBox.open(endpoint.secret_sealed, endpoint.id);
    const change = {
      secret_sealed: deps.secretBox.seal(secret, endpoint.id),
      previous_secret_sealed: deps.secretBox.seal(replaced, `${endpoint.id}:previous`),
      previous_secret_expires_at: now + ROTATION_OVERLAP_MS,
      secret_rotated_at: now,
    };
    if (await replaceSecret(deps.db.knex, endpoint.id, endpoint.secret_sealed, change))
      return { endpoint: { ...endpoint, ...change }, secret };
  }
}

/**
 * Immediate and irreversible: pending deliveries become `failed`, both secrets are destroyed, and the endpoint is
 * never used again. Its deliveries stay listed under its id.
 */
export async function deleteEndpoint(deps: WebhookDeps, merchantId: string, mode: Mode): Promise<EndpointRow> {
  const endpoint = await requireEndpoint(deps, merchantId, mode);
  await deps.db.knex.transaction(async (trx) => {
    const now = deps.now();
    await updateEndpoint(trx, endpoint.id, {
      deleted_at: now,
      enabled: false,
      disabled_reason: 'deleted',
      secret_sealed: '',
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
    });
    await failPendingDeliveries(trx, endpoint.id, now);
  });
  return endpoint;
}
