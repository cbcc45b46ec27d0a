import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookEvent } from '@paygate/webhook-verifier';

export const NOW = 1_700_000_000;
export const clock = () => NOW;

export function newSecret(bytes = 24): string {
  return `whsec_${randomBytes(bytes).toString('base64')}`;
}

/** Signs independently of the package under test, straight from the spec's recipe. */
export function referenceSignature(secret: string, id: string, timestamp: number | string, body: string | Uint8Array) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export function signedHeaders(
  secret: string,
  body: string | Uint8Array,
  { id = 'msg_1', timestamp = NOW }: { id?: string; timestamp?: number } = {},
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': referenceSignature(secret, id, timestamp, body),
  };
}

type DataOverrides = Partial<WebhookEvent['data']>;

let counter = 0;
export function makeEvent(
  overrides: { id?: string; type?: WebhookEvent['type'] } & { data?: DataOverrides } = {},
): WebhookEvent {
  counter += 1;
  const data: WebhookEvent['data'] = {
    payment_id: 'pay_1',
    merchant_id: 'mer_1',
    live: true,
    payment_state_version: 0,
    reference_id: 'order-1',
    status: 'requires_action',
    amount: { unit: 'iso4217/USD', value: '1000' },
    created_at: '2026-02-18T10:00:00.000Z',
    expires_at: '2026-02-18T10:30:00.000Z',
    processing: null,
    success: null,
    failed: null,
    cancelled: null,
    expired: null,
    settled: null,
    refunded: null,
    ...overrides.data,
  };
  return {
    id: overrides.id ?? `evt_${counter}`,
    type: overrides.type ?? 'payment.created',
    api_version: '2026-02-18',
    created_at: '2026-02-18T10:00:00.000Z',
    data,
  };
}
