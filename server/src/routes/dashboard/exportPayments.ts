import { once } from 'node:events';
import type { RequestHandler, Response } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import { exportPaymentsCsv } from '../../payments/paymentExport.js';

type Query = NonNullable<operations['exportPayments']['parameters']['query']>;

/**
 * Resolves when the socket takes more data again, or when the client went away (`closed`, then nothing more is
 * written). Checks `closed` first: a 'close' that already happened would never be emitted again.
 */
async function drained(res: Response, closed: () => boolean): Promise<void> {
  if (closed()) return;
  const ac = new AbortController();
  try {
    await Promise.race([once(res, 'drain', { signal: ac.signal }), once(res, 'close', { signal: ac.signal })]);
  } finally {
    ac.abort();
  }
}

/**
 * GET /v1/dashboard/payments/export: the filtered payments as CSV, streamed page by page with backpressure. The first
 * page is read before the headers go out, so a failure there is still an ordinary JSON error; a failure after that
 * cuts the connection, so the client sees a truncated download rather than a file that looks complete.
 */
export function exportPaymentsHandler(
  deps: LifecycleDeps,
): RequestHandler<Record<string, never>, string, unknown, Query> {
  return async (req, res) => {
    const { merchantId, mode } = dashboardScopeOf(res);
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const pages = exportPaymentsCsv(deps, { merchantId, live: mode === 'live' }, req.query);
    let page = await pages.next();
    const date = new Date(deps.now()).toISOString().slice(0, 10);
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="payments-${mode}-${date}.csv"`,
      'Cache-Control': 'no-store',
    });
    try {
      while (!page.done) {
        if (!res.write(page.value)) await drained(res, () => closed);
        if (closed) {
          // The client went away: stop reading the database.
          await pages.return(undefined);
          return;
        }
        page = await pages.next();
      }
      res.end();
    } catch (err) {
      res.locals.log?.error({ err }, 'payments export failed after it started; connection cut');
      res.destroy();
    }
  };
}
