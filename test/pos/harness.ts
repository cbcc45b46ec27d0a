import type { components } from '../../server/src/generated/dashboard.js';
import type { components as gateway } from '../../server/src/generated/gateway.js';
import { expectJson, type GatewayHarness } from '../gateway/harness.js';

export type CreatedTerminal = components['schemas']['CreatePosTerminalResponse'];
export type PosPayment = gateway['schemas']['PosPayment'];

/** A terminal made through the dashboard API with the merchant's test key (live: its live key). */
export async function createTerminal(
  h: GatewayHarness,
  body: Record<string, unknown> = {},
  live = false,
): Promise<CreatedTerminal> {
  const res = await h.call('POST', '/v1/dashboard/pos-terminals', {
    headers: { 'Api-Key': live ? h.account.liveKey : h.account.testKey, 'Merchant-Id': h.account.merchantId },
    body: {
      name: 'Counter',
      currency: 'USD',
      catalogue: [
        { name: 'Espresso', unitAmount: '300' },
        { name: 'Croissant', unitAmount: '425' },
      ],
      tipPercents: [10, 15, 20],
      ...body,
    },
  });
  return expectJson<CreatedTerminal>(res, 201);
}

/** A request of the point-of-sale screen: the terminal's key and nothing else. */
export function posCall(h: GatewayHarness, t: CreatedTerminal, method: string, path: string, body?: unknown) {
  return h.call(method, `/v1/gateway/pos/${t.terminal.id}${path}`, {
    headers: { 'Api-Key': null, 'Pos-Key': t.key },
    body,
  });
}
