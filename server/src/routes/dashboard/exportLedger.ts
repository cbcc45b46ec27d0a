import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { streamCsv } from '../../http/csvDownload.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { SettlementExportDeps } from './deps.js';
import { assetLookup, exportLedgerCsv } from '../../settlement/settlementExport.js';

type Query = NonNullable<operations['exportLedger']['parameters']['query']>;

/** GET /v1/dashboard/ledger/export: the settlement ledger of the request's mode as CSV, streamed */
export function exportLedgerHandler(
  deps: SettlementExportDeps,
): RequestHandler<Record<string, never>, string, unknown, Query> {
  const assets = assetLookup(deps.chains);
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const pages = exportLedgerCsv(deps.db.knex, { merchantId, live: mode === 'live' }, req.query, assets);
    const date = new Date(deps.now()).toISOString().slice(0, 10);
    await streamCsv(res, pages, `ledger-${mode}-${date}.csv`, 'ledger');
  };
}
