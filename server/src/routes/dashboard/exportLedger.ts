import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { streamCsv } from '../../http/csvDownload.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { Runtime } from '../../runtime.js';
import { assetLookup, exportLedgerCsv } from '../../settlement/settlementExport.js';

type Query = NonNullable<operations['exportLedger']['parameters']['query']>;

/** GET /v1/dashboard/ledger/export: the settlement ledger of the request's mode as CSV, streamed */
export function exportLedgerHandler(runtime: Runtime): RequestHandler<Record<string, never>, string, unknown, Query> {
  const assets = assetLookup(runtime.chains);
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    const pages = exportLedgerCsv(runtime.db.knex, { merchantId, live: mode === 'live' }, req.query, assets);
    const date = new Date(runtime.now()).toISOString().slice(0, 10);
    await streamCsv(res, pages, `ledger-${mode}-${date}.csv`, 'ledger');
  };
}
