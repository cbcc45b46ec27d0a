/** The merchant-data operations of the dashboard (overview, payments, keys, settings, sources), for checks on all. */
import type { Operation } from './harness.js';
import { pngLogo } from './logoFiles.js';

export const UNKNOWN_PAYMENT = 'pay_AAAAAAAAAAAAAAAAAAAAAAAA';
export const UNKNOWN_KEY = 'key_AAAAAAAAAAAAAAAA';
export const UNKNOWN_PAYOUT = 'po_AAAAAAAAAAAAAAAAAAAA';
export const UNKNOWN_POS = 'pos_AAAAAAAAAAAAAAAA';

/** `path(id)` takes a payment id or a key id as the operation needs. */
export const merchantDataOperations: Operation[] = [
  { name: 'getOverview', method: 'GET', path: () => '/v1/dashboard/overview', hasBody: false },
  { name: 'listDashboardPayments', method: 'GET', path: () => '/v1/dashboard/payments', hasBody: false },
  { name: 'exportPayments', method: 'GET', path: () => '/v1/dashboard/payments/export', hasBody: false },
  {
    name: 'getDashboardPayment',
    method: 'GET',
    path: () => `/v1/dashboard/payments/${UNKNOWN_PAYMENT}`,
    hasBody: false,
  },
  {
    name: 'getPaymentTimeline',
    method: 'GET',
    path: () => `/v1/dashboard/payments/${UNKNOWN_PAYMENT}/timeline`,
    hasBody: false,
  },
  {
    name: 'cancelDashboardPayment',
    method: 'POST',
    path: () => `/v1/dashboard/payments/${UNKNOWN_PAYMENT}/cancel`,
    body: {},
    hasBody: true,
  },
  {
    name: 'refundDashboardPayment',
    method: 'POST',
    path: () => `/v1/dashboard/payments/${UNKNOWN_PAYMENT}/refund`,
    body: {},
    hasBody: true,
  },
  {
    name: 'simulateDashboardPayment',
    method: 'POST',
    path: () => `/v1/dashboard/payments/${UNKNOWN_PAYMENT}/simulate`,
    body: { to: 'processing' },
    hasBody: true,
  },
  { name: 'listApiKeys', method: 'GET', path: () => '/v1/dashboard/api-keys', hasBody: false },
  {
    name: 'createApiKey',
    method: 'POST',
    path: () => '/v1/dashboard/api-keys',
    body: { mode: 'test' },
    hasBody: true,
  },
  {
    name: 'rotateApiKey',
    method: 'POST',
    path: () => `/v1/dashboard/api-keys/${UNKNOWN_KEY}/rotate`,
    hasBody: false,
  },
  { name: 'revokeApiKey', method: 'DELETE', path: () => `/v1/dashboard/api-keys/${UNKNOWN_KEY}`, hasBody: false },
  { name: 'listPosTerminals', method: 'GET', path: () => '/v1/dashboard/pos-terminals', hasBody: false },
  {
    name: 'createPosTerminal',
    method: 'POST',
    path: () => '/v1/dashboard/pos-terminals',
    body: { name: 'Counter', currency: 'USD' },
    hasBody: true,
  },
  {
    name: 'revokePosTerminal',
    method: 'DELETE',
    path: () => `/v1/dashboard/pos-terminals/${UNKNOWN_POS}`,
    hasBody: false,
  },
  { name: 'getSettings', method: 'GET', path: () => '/v1/dashboard/settings', hasBody: false },
  {
    name: 'updateSettings',
    method: 'PATCH',
    path: () => '/v1/dashboard/settings',
    body: { collectData: false },
    hasBody: true,
  },
  {
    name: 'uploadLogo',
    method: 'PUT',
    path: () => '/v1/dashboard/settings/logo',
    body: { image: pngLogo().toString('base64') },
    hasBody: true,
  },
  { name: 'removeLogo', method: 'DELETE', path: () => '/v1/dashboard/settings/logo', hasBody: false },
  { name: 'getWebhookSources', method: 'GET', path: () => '/v1/dashboard/webhook-sources', hasBody: false },
  { name: 'getDashboardSettlementBalances', method: 'GET', path: () => '/v1/dashboard/balances', hasBody: false },
  { name: 'listDashboardPayouts', method: 'GET', path: () => '/v1/dashboard/payouts', hasBody: false },
  { name: 'getDashboardPayout', method: 'GET', path: () => `/v1/dashboard/payouts/${UNKNOWN_PAYOUT}`, hasBody: false },
  { name: 'exportPayouts', method: 'GET', path: () => '/v1/dashboard/payouts/export', hasBody: false },
  { name: 'exportLedger', method: 'GET', path: () => '/v1/dashboard/ledger/export', hasBody: false },
];

/** A CSV body as rows of fields (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) throw new Error(`the CSV does not end with CRLF: ${JSON.stringify(field)}`);
  return rows;
}
