/**
 * The merchant-data operations of the dashboard API that the screens call (helper "data"'s contract: getOverview,
 * listDashboardPayments, exportPayments, getDashboardPayment, getPaymentTimeline, the payment actions and
 * getWebhookSources), in one place. The webhook operations are called with the typed client directly.
 *
 * Until that contract is merged, the shapes below are written from design.md and the calls go through an untyped view
 * of the client; after the merge, this file switches to the generated types (server/src/generated/dashboard.ts) and
 * nothing else changes.
 */
import type { DashboardClient } from '../../api.js';
import type { components } from '../../../../../server/src/generated/dashboard';
import { failureOf, thrownFailure, type Failure } from './errors.js';

export type PaymentSnapshot = components['schemas']['PaymentSnapshot'];
export type PaymentStatus = components['schemas']['PaymentStatus'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookEventType = components['schemas']['WebhookEventType'];

export interface Totals {
  /** Minor units, decimal string. */
  volume: string;
  count: number;
  succeeded: number;
  /** "0.9500", or null when no payment of the window reached a final status. */
  successRate: string | null;
}

export interface CurrencyOverview {
  /** `iso4217/USD`. */
  currency: string;
  today: Totals;
  last7Days: Totals;
  last30Days: Totals;
}

export interface Overview {
  mode: 'test' | 'live';
  currencies: CurrencyOverview[];
  /** Days with payments in the last 30 days (UTC dates), per currency. */
  series: { date: string; currency: string; volume: string; count: number }[];
}

export interface PaymentList {
  data: PaymentSnapshot[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface PaymentFilters {
  status?: PaymentStatus;
  settled?: boolean;
  createdGte?: number;
  createdLt?: number;
  referenceId?: string;
}

export interface TimelineEntry {
  /** Unix seconds or an ISO timestamp. */
  at: number | string;
  kind: 'transition' | 'event';
  status?: PaymentStatus;
  event?: { id: string; type: WebhookEventType };
  deliveries?: WebhookDelivery[];
}

export interface Timeline {
  entries: TimelineEntry[];
}

export type SimulateTarget = 'processing' | 'succeeded' | 'failed' | 'expired' | 'cancelled' | 'settled';

export type Result<T> = { ok: true; data: T; response: Response } | { ok: false; failure: Failure };

interface Init {
  params?: { path?: Record<string, string>; query?: Record<string, unknown> };
  body?: unknown;
  parseAs?: 'json' | 'blob' | 'text';
}

interface UntypedClient {
  GET(path: string, init?: Init): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  POST(path: string, init?: Init): Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

async function call<T>(
  api: DashboardClient,
  method: 'GET' | 'POST',
  path: string,
  init: Init = {},
): Promise<Result<T>> {
  try {
    const { data, error, response } = await (api as unknown as UntypedClient)[method](path, init);
    if (error !== undefined || !response.ok) return { ok: false, failure: failureOf(error, response) };
    return { ok: true, data: data as T, response };
  } catch (e) {
    return { ok: false, failure: thrownFailure(e) };
  }
}

export const getOverview = (api: DashboardClient) => call<Overview>(api, 'GET', '/v1/dashboard/overview');

export const listPayments = (api: DashboardClient, filters: PaymentFilters, startingAfter?: string, limit = 25) =>
  call<PaymentList>(api, 'GET', '/v1/dashboard/payments', {
    params: { query: { ...filters, limit, ...(startingAfter ? { startingAfter } : {}) } },
  });

/** The CSV export, as a Blob, and the file name the server gave it. */
export async function exportPayments(
  api: DashboardClient,
  filters: PaymentFilters,
): Promise<Result<{ blob: Blob; fileName: string }>> {
  const result = await call<Blob>(api, 'GET', '/v1/dashboard/payments/export', {
    params: { query: { ...filters } },
    parseAs: 'blob',
  });
  if (!result.ok) return result;
  const fileName = fileNameOf(result.response.headers.get('Content-Disposition')) ?? 'payments.csv';
  return { ok: true, data: { blob: result.data, fileName }, response: result.response };
}

/** The file name of a `Content-Disposition: attachment; filename="…"` header (plain or RFC 5987 `filename*`). */
export function fileNameOf(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended) {
    try {
      return sanitizeFileName(decodeURIComponent(extended[1]!.trim()));
    } catch {
      /* fall through to the plain form */
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/.exec(header);
  const name = plain?.[1] ?? plain?.[2];
  return name ? sanitizeFileName(name) : null;
}

function sanitizeFileName(name: string): string | null {
  const base = Array.from(name.replace(/^.*[\\/]/, ''))
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
    .join('');
  return base === '' || base === '.' || base === '..' ? null : base;
}

export const getPayment = (api: DashboardClient, paymentId: string) =>
  call<PaymentSnapshot>(api, 'GET', '/v1/dashboard/payments/{paymentId}', { params: { path: { paymentId } } });

export const getTimeline = (api: DashboardClient, paymentId: string) =>
  call<Timeline>(api, 'GET', '/v1/dashboard/payments/{paymentId}/timeline', { params: { path: { paymentId } } });

export const cancelPayment = (api: DashboardClient, paymentId: string, reason: string) =>
  call<PaymentSnapshot>(api, 'POST', '/v1/dashboard/payments/{paymentId}/cancel', {
    params: { path: { paymentId } },
    body: reason.trim() === '' ? {} : { reason: reason.trim() },
  });

export const refundPayment = (api: DashboardClient, paymentId: string, reason: string) =>
  call<PaymentSnapshot>(api, 'POST', '/v1/dashboard/payments/{paymentId}/refund', {
    params: { path: { paymentId } },
    body: reason.trim() === '' ? {} : { reason: reason.trim() },
  });

export const simulatePayment = (api: DashboardClient, paymentId: string, to: SimulateTarget) =>
  call<PaymentSnapshot>(api, 'POST', '/v1/dashboard/payments/{paymentId}/simulate', {
    params: { path: { paymentId } },
    body: { to },
  });

export const getWebhookSources = (api: DashboardClient) =>
  call<{ addresses: string[] }>(api, 'GET', '/v1/dashboard/webhook-sources');

/** The same wrapper for the typed webhook calls: a typed promise in, a Result out. */
export async function settle<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Result<T>> {
  try {
    const { data, error, response } = await request;
    if (error !== undefined || !response.ok) return { ok: false, failure: failureOf(error, response) };
    return { ok: true, data: data as T, response };
  } catch (e) {
    return { ok: false, failure: thrownFailure(e) };
  }
}
