/**
 * The merchant-data operations of the dashboard API that the screens call (getOverview, listDashboardPayments,
 * exportPayments, getDashboardPayment, getPaymentTimeline, the payment actions and getWebhookSources), each answering
 * the data or throwing the failure to show (kit/request.ts). Types come from the contract (web/src/generated/).
 */
import type { DashboardClient } from '../../api.js';
import type { components } from '../../../generated/dashboard.js';
import { request, requestWithResponse } from '../../../kit/request.js';
import { fileNameOf } from './fileName.js';

type Schemas = components['schemas'];
export type PaymentSnapshot = Schemas['PaymentSnapshot'];
export type PaymentStatus = Schemas['PaymentStatus'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type Totals = Schemas['OverviewWindow'];
export type CurrencyOverview = Schemas['CurrencyOverview'];
export type Overview = Schemas['Overview'];
export type PaymentList = Schemas['PaymentList'];
export type TimelineEntry = Schemas['PaymentTimelineEntry'];
export type Timeline = Schemas['PaymentTimeline'];
export type SimulateTarget = Schemas['SimulatePaymentRequest']['to'];

export interface PaymentFilters {
  status?: PaymentStatus;
  settled?: boolean;
  createdGte?: number;
  createdLt?: number;
  referenceId?: string;
  /** Whole words of the description and metadata values. */
  q?: string;
  /** The payments one payment link created. */
  linkId?: string;
}

export const getOverview = (api: DashboardClient) => request(api.GET('/v1/dashboard/overview'));

export const listPayments = (api: DashboardClient, filters: PaymentFilters, startingAfter?: string, limit = 25) =>
  request(
    api.GET('/v1/dashboard/payments', {
      params: { query: { ...filters, limit, ...(startingAfter ? { startingAfter } : {}) } },
    }),
  );

/** The CSV export, as a Blob, and the file name the server gave it. */
export async function exportPayments(
  api: DashboardClient,
  filters: PaymentFilters,
): Promise<{ blob: Blob; fileName: string }> {
  const { data, response } = await requestWithResponse<Blob>(
    api.GET('/v1/dashboard/payments/export', { params: { query: { ...filters } }, parseAs: 'blob' }),
  );
  return { blob: data, fileName: fileNameOf(response.headers.get('Content-Disposition')) ?? 'payments.csv' };
}

const path = (paymentId: string) => ({ params: { path: { paymentId } } });
const reasonBody = (reason: string) => (reason.trim() === '' ? {} : { reason: reason.trim() });

export const getPayment = (api: DashboardClient, paymentId: string) =>
  request(api.GET('/v1/dashboard/payments/{paymentId}', path(paymentId)));

/** One page of the timeline: every transition and event, with the deliveries after `startingAfter`. */
export const getTimeline = (api: DashboardClient, paymentId: string, startingAfter?: string) =>
  request(
    api.GET('/v1/dashboard/payments/{paymentId}/timeline', {
      params: { path: { paymentId }, query: startingAfter ? { startingAfter } : {} },
    }),
  );

/** The timeline read so far with its next page added: each event's deliveries grow, the cursor moves on. */
export function withNextPage(read: Timeline, next: Timeline): Timeline {
  const more = new Map(next.entries.flatMap((e) => (e.event ? [[e.event.id, e.deliveries ?? []] as const] : [])));
  return {
    entries: read.entries.map((e) =>
      e.event ? { ...e, deliveries: [...(e.deliveries ?? []), ...(more.get(e.event.id) ?? [])] } : e,
    ),
    hasMore: next.hasMore,
    nextCursor: next.nextCursor,
  };
}

export const cancelPayment = (api: DashboardClient, paymentId: string, reason: string) =>
  request(api.POST('/v1/dashboard/payments/{paymentId}/cancel', { ...path(paymentId), body: reasonBody(reason) }));

export const refundPayment = (api: DashboardClient, paymentId: string, reason: string) =>
  request(api.POST('/v1/dashboard/payments/{paymentId}/refund', { ...path(paymentId), body: reasonBody(reason) }));

export type RefundOptions = Schemas['RefundOptions'];
export type RefundRequest = Schemas['RefundPaymentRequest'];
export type RefundAnswer = Schemas['RefundPaymentResponse'];

export const getRefundOptions = (api: DashboardClient, paymentId: string) =>
  request(api.GET('/v1/dashboard/payments/{paymentId}/refunds', path(paymentId)));

/** One key per refund the user means to send: a retry of the same submit replays it, never refunds twice. */
export const sendRefund = (api: DashboardClient, paymentId: string, body: RefundRequest, idempotencyKey: string) =>
  request(
    api.POST('/v1/dashboard/payments/{paymentId}/refunds', {
      params: { path: { paymentId }, header: { 'Idempotency-Key': idempotencyKey } },
      body,
    }),
  );

export const cancelRefund = (api: DashboardClient, refundId: string) =>
  request(api.POST('/v1/dashboard/refunds/{refundId}/cancel', { params: { path: { refundId } } }));

export const simulatePayment = (api: DashboardClient, paymentId: string, to: SimulateTarget) =>
  request(api.POST('/v1/dashboard/payments/{paymentId}/simulate', { ...path(paymentId), body: { to } }));

export const getWebhookSources = (api: DashboardClient) => request(api.GET('/v1/dashboard/webhook-sources'));

export type Payout = Schemas['Payout'];
export type PayoutList = Schemas['PayoutList'];
export type SettlementBalances = Schemas['SettlementBalances'];
export type FeeBalances = Schemas['FeeBalances'];

export interface ExportWindow {
  createdGte?: number;
  createdLt?: number;
}

export const getSettlementBalances = (api: DashboardClient) => request(api.GET('/v1/dashboard/balances'));

export const getFeeBalance = (api: DashboardClient) => request(api.GET('/v1/dashboard/fees'));

export const listPayouts = (api: DashboardClient, startingAfter?: string, limit = 20) =>
  request(
    api.GET('/v1/dashboard/payouts', { params: { query: { limit, ...(startingAfter ? { startingAfter } : {}) } } }),
  );

export const getPayout = (api: DashboardClient, payoutId: string) =>
  request(api.GET('/v1/dashboard/payouts/{payoutId}', { params: { path: { payoutId } } }));

/** A settlement CSV export (the ledger or the payouts), as a Blob, and the file name the server gave it. */
export async function exportSettlement(
  api: DashboardClient,
  which: 'ledger' | 'payouts',
  window: ExportWindow,
): Promise<{ blob: Blob; fileName: string }> {
  const call =
    which === 'ledger'
      ? api.GET('/v1/dashboard/ledger/export', { params: { query: { ...window } }, parseAs: 'blob' })
      : api.GET('/v1/dashboard/payouts/export', { params: { query: { ...window } }, parseAs: 'blob' });
  const { data, response } = await requestWithResponse<Blob>(
    call as Promise<{ data?: Blob; error?: unknown; response: Response }>,
  );
  return { blob: data, fileName: fileNameOf(response.headers.get('Content-Disposition')) ?? `${which}.csv` };
}

/** Hands a Blob to the browser as a download (a hidden link to an object URL, released once the browser has it). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
