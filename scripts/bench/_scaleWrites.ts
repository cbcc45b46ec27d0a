/**
 * The scale benchmark's write throughputs beside creates (issue 36: "create, confirm and delivery throughput beside
 * an empty database"), measured at each size and on the empty database:
 *
 * - **confirms/s:** test mode's simulate to `processing` through the merchant API, the transition a confirm makes
 *   (the payment's row and its rollup, the `payment.processing` event, its delivery scheduled), without the chain
 *   round trip a real confirm adds, which costs the same at any size;
 * - **deliveries/s:** `attemptDelivery` of fresh pending deliveries (resends of recent events) to a receiver that
 *   answers at once (the claim, the signed POST, the attempt row and the delivery's outcome), as the
 *   `webhooks.deliver` task runs it.
 */
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { findEndpoint } from '../../server/src/db/queries/webhooks.js';
import { attemptDelivery, pendingDelivery } from '../../server/src/webhooks/delivery.js';
import { DAY } from './_scaleSeed.js';
import type { Served } from './_scaleMeasure.js';

/** Runs `one` from `concurrency` workers over `items` until `seconds` pass or the items run out; answers per second. */
async function throughput<T>(
  items: T[],
  seconds: number,
  concurrency: number,
  one: (item: T) => Promise<boolean>,
): Promise<number> {
  const started = performance.now();
  const end = started + seconds * 1000;
  let next = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end && next < items.length) {
        if (await one(items[next++]!)) done++;
      }
    }),
  );
  return Math.round(done / ((performance.now() - started) / 1000));
}

/** Simulated confirms per second (see above), over `pool` fresh payments of the merchant. */
export async function measureConfirms(s: Served, seconds: number, concurrency = 16): Promise<number> {
  // More payments than the measured seconds can confirm on this machine, made before the clock starts.
  const pool = Math.min(3000, Math.ceil(seconds * 600));
  const ids: string[] = [];
  for (let i = 0; i < pool; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, () =>
        createPayment(s.runtime, {
          merchantId: s.account.merchantId,
          live: false,
          referenceId: 'bench-confirm',
          amount: { unit: 'iso4217/USD', value: '1250' },
          expiresAt: s.fill.now + DAY,
          successUrl: null,
          errorUrl: null,
        }),
      ),
    );
    ids.push(...batch.map((p) => p.id));
  }
  const headers = {
    'Api-Key': s.account.testKey,
    'Merchant-Id': s.account.merchantId,
    'Content-Type': 'application/json',
  };
  const body = JSON.stringify({ to: 'processing' });
  return throughput(ids, seconds, concurrency, async (id) => {
    const res = await fetch(`${s.server.url}/v1/merchant/test/payment/${id}/simulate`, {
      method: 'POST',
      headers,
      body,
    });
    await res.text();
    if (res.status !== 200) throw new Error(`simulate: ${res.status}`);
    return true;
  });
}

/**
 * The pending deliveries `measureDeliveries` attempts: the merchant's most recent events sent again, as a resend makes
 * them (a delivery row per event, its payload the event's), enough that the measure never runs out of work. Counting
 * only the deliveries the creates and confirms left behind, as this bench first did, measured one to three seconds of
 * a run-up whose length changed with those rates, and so swung by 2× between runs of the same code.
 */
async function pendingDeliveries(s: Served, count: number): Promise<string[]> {
  const events = (await s.fill
    .knex('events')
    .where({ merchant_id: s.account.merchantId, live: false })
    .orderBy('id', 'desc')
    .limit(count)
    .select('id', 'type', 'payment_id')) as { id: string; type: string; payment_id: string }[];
  const endpoint = await findEndpoint(s.fill.knex, s.fill.endpointId);
  if (!endpoint) throw new Error('the bench endpoint is gone');
  const now = s.runtime.now();
  const rows = events.map((e) => pendingDelivery(endpoint, e, 'resend', now));
  // 200 rows a statement: SQLite allows at most 500 terms in the compound SELECT knex builds.
  await s.fill.knex.batchInsert('webhook_deliveries', rows, 200);
  return rows.map((r) => r.id);
}

/**
 * Deliveries per second: `attemptDelivery` of fresh pending deliveries (above) by `concurrency` workers, the median
 * of three runs of `seconds` each, so that one stall of a shared machine does not decide the figure.
 */
export async function measureDeliveries(s: Served, seconds: number, concurrency = 16): Promise<number> {
  const rates: number[] = [];
  for (let run = 0; run < 3; run++) {
    // More than the measured seconds can attempt on this machine (about 2,500 a second at best).
    const pending = await pendingDeliveries(s, Math.ceil(seconds * 4000));
    rates.push(
      await throughput(pending, seconds, concurrency, async (id) => (await attemptDelivery(s.runtime, id)) !== null),
    );
    // What this run left pending is ended, so the next run's claims find only their own rows pending.
    await s.fill.knex('webhook_deliveries').whereIn('id', pending).andWhere({ status: 'pending' }).update({
      status: 'failed',
      next_attempt_at: null,
    });
  }
  return rates.sort((a, b) => a - b)[1]!;
}
