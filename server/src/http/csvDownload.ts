import { once } from 'node:events';
import type { Response } from 'express';

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
 * Streams a CSV download page by page with backpressure (the dashboard's exports). The first page is read before the
 * headers go out, so a failure there is still an ordinary JSON error; a failure after that cuts the connection, so
 * the client sees a truncated download rather than a file that looks complete. A client that goes away stops the
 * reading of the database.
 */
export async function streamCsv(
  res: Response,
  pages: AsyncGenerator<string>,
  fileName: string,
  what: string,
): Promise<void> {
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  let page = await pages.next();
  res.status(200).set({
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName}"`,
    'Cache-Control': 'no-store',
  });
  try {
    while (!page.done) {
      if (!res.write(page.value)) await drained(res, () => closed);
      if (closed) {
        await pages.return(undefined);
        return;
      }
      page = await pages.next();
    }
    res.end();
  } catch (err) {
    res.locals.log?.error({ err }, `${what} export failed after it started; connection cut`);
    res.destroy();
  }
}
