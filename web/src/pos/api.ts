/**
 * The point-of-sale operations of the gateway contract, with the terminal's key in the `Pos-Key` header (never in
 * a URL). Every read goes to the network (`no-store`): a status answered from a cache could show a stale "Paid".
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../generated/gateway.js';

export type PosTerminal = components['schemas']['PosTerminal'];
export type PosPayment = components['schemas']['PosPayment'];
export type SaleRequest = components['schemas']['CreatePosPaymentRequest'];
export type PosClient = Client<paths>;

export function createPosClient(key: string, baseUrl = location.origin): PosClient {
  const client = createClient<paths>({ baseUrl, cache: 'no-store' });
  client.use({
    onRequest({ request }) {
      request.headers.set('Pos-Key', key);
      return request;
    },
  });
  return client;
}
