/**
 * The dashboard API over a real server and database (the merchant harness underneath: responses are contract-checked),
 * with a real webhook receiver on loopback. Each test takes a fresh merchant (`h.merchant()`), since a merchant has at
 * most one endpoint per mode; its endpoint URL is its own path on the receiver, so its hits are told apart.
 */
import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { startReceiver, type Received, type Receiver } from '../helpers/receiver.js';
import { expectJson, startHarness, type CallOptions, type Harness } from '../merchant/harness.js';

export { expectError, expectJson } from '../merchant/harness.js';

export interface Dashboard {
  harness: Harness;
  receiver: Receiver;
  /** A new merchant of a new partner, with test and live keys, and no endpoint. */
  merchant(options?: { partnerId?: string }): Promise<Merchant>;
  /** A verifier on the harness clock, as a receiver holding `secret` would run it. */
  verifier(secret: string): Webhook;
  /** Runs every job that is due (the attempts of new deliveries). */
  drain(): Promise<void>;
  /** Moves the clock through every retry of the pending deliveries until none is pending. */
  exhaust(): Promise<void>;
  close(): Promise<void>;
}

export interface Merchant {
  account: MerchantAccount;
  /** Its endpoint URL on the receiver. */
  url: string;
  /** A request with the merchant's test key (`live`: its live key); a null header value removes the header. */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** Registers its endpoint for a mode (test by default) and answers the create response. */
  createEndpoint(body?: Record<string, unknown>, options?: { live?: boolean }): Promise<Created>;
  /** What its endpoint URL received, oldest first. */
  received(): Received[];
  /** Creates a payment through the merchant API (an event, so a delivery when an endpoint wants it). */
  createPayment(options?: { live?: boolean }): Promise<string>;
  /** Its deliveries of a mode, newest first, through the API. */
  deliveries(query?: string, options?: { live?: boolean }): Promise<Delivery[]>;
}

export interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  mode: 'test' | 'live';
  createdAt: number;
  secretRotatedAt: number | null;
  previousSecretExpiresAt: number | null;
  failingSince: number | null;
}

export interface Created {
  endpoint: Endpoint;
  secret: string;
}

export interface Attempt {
  attempt: number;
  startedAt: number;
  status: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  outcome: 'delivered' | 'failed';
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  paymentId: string;
  endpointId: string;
  trigger: 'event' | 'resend' | 'replay' | 'test';
  status: 'pending' | 'delivered' | 'failed';
  attemptCount: number;
  nextAttemptAt: number | null;
  createdAt: number;
  deliveredAt: number | null;
  attempts?: Attempt[];
}

export interface DeliveryList {
  data: Delivery[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A public address for live-mode endpoints: tests resolve names to it and never let an attempt run. */
export const PUBLIC_ADDRESS = '93.184.216.34';

export async function startDashboard(options: Parameters<typeof startHarness>[0] = {}): Promise<Dashboard> {
  const h = await startHarness(options);
  const receiver = await startReceiver();
  h.runtime.webhookOptions.attemptTimeoutMs = 300;
  const drain = async () => {
    await h.runtime.jobs.drain();
  };
  let seq = 0;

  return {
    harness: h,
    receiver,
    async merchant(o = {}) {
      const account = await createMerchantAccount(h.runtime, o);
      const path = `/hooks/${++seq}`;
      const url = `${receiver.url}${path}`;
      const call = (method: string, p: string, c: CallOptions = {}) =>
        h.call(method, p, {
          ...c,
          headers: {
            'Api-Key': c.live ? account.liveKey : account.testKey,
            'Merchant-Id': account.merchantId,
            ...c.headers,
          },
        });
      const m: Merchant = {
        account,
        url,
        call,
        async createEndpoint(body = { url }, c = {}) {
          return expectJson<Created>(await call('POST', '/v1/dashboard/webhook-endpoint', { body, live: c.live }), 201);
        },
        received: () => receiver.received.filter((r) => r.path === path),
        async createPayment(c = {}) {
          // Open for 6 days, beyond the ≈ 28 h retry schedule, so no expiry event joins the deliveries under test.
          const expiresAt = Math.floor(h.clock.now() / 1000) + 6 * 86_400;
          const body = { amount: { unit: 'iso4217/USD', value: '1250' }, referenceId: `order_${++seq}`, expiresAt };
          const res = await call('POST', '/v1/merchant/payment', { body, live: c.live });
          return (await expectJson<{ paymentId: string }>(res, 201)).paymentId;
        },
        async deliveries(query = '', c = {}) {
          const res = await call('GET', `/v1/dashboard/webhook-deliveries${query ? `?${query}` : ''}`, c);
          return (await expectJson<DeliveryList>(res, 200)).data;
        },
      };
      return m;
    },
    verifier: (secret) => new Webhook(secret, { now: () => Math.floor(h.clock.now() / 1000) }),
    drain,
    async exhaust() {
      for (;;) {
        const next = (await h.runtime.db
          .knex('webhook_deliveries')
          .where({ status: 'pending' })
          .min({ at: 'next_attempt_at' })
          .first()) as { at: number | string | null } | undefined;
        if (next?.at === null || next?.at === undefined) return;
        h.clock.set(Math.max(h.clock.now(), Number(next.at)));
        await h.runtime.sweep();
        await drain();
      }
    },
    async close() {
      await receiver.close();
      await h.close();
    },
  };
}

/** Names every public host to PUBLIC_ADDRESS, so live-mode endpoints can be created without DNS. */
export function resolvePublic(d: Dashboard, table: Record<string, string[]> = {}): void {
  d.harness.runtime.webhookOptions.resolve = async (host) => {
    const answer = table[host];
    if (answer?.length === 0) throw new Error(`ENOTFOUND ${host}`);
    return (answer ?? [PUBLIC_ADDRESS]).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** The one delivery a merchant has in a mode. */
export async function onlyDelivery(m: Merchant, live = false): Promise<Delivery> {
  const list = await m.deliveries('', { live });
  assert.equal(list.length, 1, JSON.stringify(list));
  return list[0]!;
}

/** Every operation of the dashboard contract, for checks that apply to all of them. */
export interface Operation {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (deliveryId: string) => string;
  body?: unknown;
  /** Whether the operation takes a JSON body (so 413 and 415 apply). */
  hasBody: boolean;
}

export const UNKNOWN_DELIVERY = 'whd_AAAAAAAAAAAAAAAAAAAAAAAA';

export const operations: Operation[] = [
  {
    name: 'createWebhookEndpoint',
    method: 'POST',
    path: () => '/v1/dashboard/webhook-endpoint',
    body: { url: 'http://127.0.0.1:9/hooks' },
    hasBody: true,
  },
  { name: 'getWebhookEndpoint', method: 'GET', path: () => '/v1/dashboard/webhook-endpoint', hasBody: false },
  {
    name: 'updateWebhookEndpoint',
    method: 'PATCH',
    path: () => '/v1/dashboard/webhook-endpoint',
    body: { enabled: true },
    hasBody: true,
  },
  { name: 'deleteWebhookEndpoint', method: 'DELETE', path: () => '/v1/dashboard/webhook-endpoint', hasBody: false },
  {
    name: 'rotateWebhookSecret',
    method: 'POST',
    path: () => '/v1/dashboard/webhook-endpoint/rotate-secret',
    hasBody: false,
  },
  {
    name: 'sendTestEvent',
    method: 'POST',
    path: () => '/v1/dashboard/webhook-endpoint/test',
    body: { type: 'payment.succeeded' },
    hasBody: true,
  },
  { name: 'listWebhookDeliveries', method: 'GET', path: () => '/v1/dashboard/webhook-deliveries', hasBody: false },
  {
    name: 'getWebhookDelivery',
    method: 'GET',
    path: (id) => `/v1/dashboard/webhook-deliveries/${id}`,
    hasBody: false,
  },
  {
    name: 'resendWebhookDelivery',
    method: 'POST',
    path: (id) => `/v1/dashboard/webhook-deliveries/${id}/resend`,
    hasBody: false,
  },
  {
    name: 'resendFailedWebhookDeliveries',
    method: 'POST',
    path: () => '/v1/dashboard/webhook-deliveries/resend-failed',
    body: { since: 0 },
    hasBody: true,
  },
  {
    name: 'replayWebhookEvents',
    method: 'POST',
    path: () => '/v1/dashboard/webhook-events/replay',
    body: { since: 0 },
    hasBody: true,
  },
];
