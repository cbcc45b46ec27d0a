import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { streamCsv } from '../../http/csvDownload.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { SettlementExportDeps } from './deps.js';
import { assetLookup, exportPayoutsCsv } from '../../settlement/settlementExport.js';

type Query = NonNullable<operations['exportPayouts']['parameters']['query']>;

/** GET /v1/dashboard/payouts/export: the payouts of the request's mode as CSV, one row per payment covered, streamed */
export function exportPayoutsHandler(
  deps: SettlementExportDeps,
): RequestHandler<Record<string, never>, string, unknown, Query> {
  const assets = assetLookup(deps.chains);
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const pages = exportPayoutsCsv(deps.db.knex, { merchantId, live: mode === 'live' }, req.query, assets);
    const date = new Date(deps.now()).toISOString().slice(0, 10);
    await streamCsv(res, pages, `payouts-${mode}-${date}.csv`, 'payouts');
  };
}
