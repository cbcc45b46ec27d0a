import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { streamCsv } from '../../http/csvDownload.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';
import { assetLookup, exportPayoutsCsv } from '../../settlement/settlementExport.js';

type Query = NonNullable<operations['exportPayouts']['parameters']['query']>;

/** GET /v1/dashboard/payouts/export: the payouts of the request's mode as CSV, one row per payment covered, streamed */
export function exportPayoutsHandler(runtime: Runtime): RequestHandler<Record<string, never>, string, unknown, Query> {
  const assets = assetLookup(runtime.chains);
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const pages = exportPayoutsCsv(runtime.db.knex, { merchantId, live: mode === 'live' }, req.query, assets);
    const date = new Date(runtime.now()).toISOString().slice(0, 10);
    await streamCsv(res, pages, `payouts-${mode}-${date}.csv`, 'payouts');
  };
}
