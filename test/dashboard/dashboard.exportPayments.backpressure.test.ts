import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { insertPayments } from '../../server/src/db/queries/payments.js';
import { newId } from '../../server/src/ids.js';
import { exportPaymentsHandler } from '../../server/src/routes/dashboard/exportPayments.js';
import { eventually } from '../helpers/wait.js';
import { startDashboard, type Dashboard, type Merchant } from './harness.js';

/** A response whose socket buffer is always full: every write asks the handler to wait for 'drain'. */
class FullSocketResponse extends EventEmitter {
  chunks: string[] = [];
  ended = false;
  destroyed = false;
  locals: Record<string, unknown>;
  constructor(merchantId: string) {
    super();
    // Both the key credential's locals and the dashboard principal's (issue 16's session auth), test mode.
    this.locals = {
      merchantAuth: { merchant: { id: merchantId }, live: false, key: {} },
      dashboardPrincipal: { merchantId, mode: 'test' },
    };
  }
  status() {
    return this;
  }
  set() {
    return this;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    return false;
  }
  end() {
    this.ended = true;
  }
  destroy() {
    this.destroyed = true;
  }
}

describe('dashboard.exportPayments.backpressure', () => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard();
    m = await d.merchant();
    const t0 = d.harness.clock.now();
    const rows = Array.from({ length: 1100 }, (_, i) => ({
      id: newId.payment(),
      merchant_id: m.account.merchantId,
      live: false,
      status: 'requires_action' as const,
      state_version: 0,
      reference_id: `r${i}`,
      amount_unit: 'iso4217/USD',
      amount_value: '1',
      success_url: null,
      error_url: null,
      created_at: t0 - 10_000 + i,
      expires_at: t0 + 86_400_000,
      updated_at: t0,
    }));
    for (let i = 0; i < rows.length; i += 200) await insertPayments(d.harness.runtime.db.knex, rows.slice(i, i + 200));
  });
  after(() => d.close());

  const run = (res: FullSocketResponse) =>
    exportPaymentsHandler(d.harness.runtime)(
      { query: {} } as unknown as Request<Record<string, never>, string, unknown, Record<string, never>>,
      res as unknown as Response<string>,
      () => undefined,
    ) as unknown as Promise<void>;

  it('exportPayments writes the next page only after drain, and ends after the last one', async () => {
    const res = new FullSocketResponse(m.account.merchantId);
    const done = run(res);
    // Header, then pages of 500, 500 and 100 rows: each write waits for a drain.
    for (let written = 1; written <= 4; written++) {
      await eventually(`write ${written}`, () => res.chunks.length === written);
      assert.equal(res.ended, false);
      res.emit('drain');
    }
    await done;
    assert.equal(res.ended, true);
    assert.equal(res.chunks.join('').split('\r\n').length - 1, 1101);
  });

  it('exportPayments stops reading when the client goes away while it waits for drain', async () => {
    const res = new FullSocketResponse(m.account.merchantId);
    const done = run(res);
    await eventually('the header written', () => res.chunks.length === 1);
    res.emit('close');
    await done;
    assert.equal(res.chunks.length, 1, 'no page written after the client left');
    assert.equal(res.ended, false);
  });

  it('exportPayments stops when the client left before the wait for drain began', async () => {
    const res = new FullSocketResponse(m.account.merchantId);
    res.write = (chunk: string) => {
      res.chunks.push(chunk);
      res.emit('close'); // the socket closed during this write: no later 'close' will come
      return false;
    };
    await run(res);
    assert.equal(res.chunks.length, 1);
  });
});
