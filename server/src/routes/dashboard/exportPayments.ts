import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { streamCsv } from '../../http/csvDownload.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { exportPaymentsCsv } from '../../payments/paymentExport.js';

type Query = NonNullable<operations['exportPayments']['parameters']['query']>;

/** GET /v1/dashboard/payments/export: the filtered payments as CSV, streamed page by page with backpressure. */
export function exportPaymentsHandler(
  deps: LifecycleDeps,
): RequestHandler<Record<string, never>, string, unknown, Query> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const pages = exportPaymentsCsv(deps, { merchantId, live: mode === 'live' }, req.query);
    const date = new Date(deps.now()).toISOString().slice(0, 10);
    await streamCsv(res, pages, `payments-${mode}-${date}.csv`, 'payments');
  };
}
