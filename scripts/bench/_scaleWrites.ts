/**
 * The scale benchmark's write throughputs beside creates (issue 36: "create, confirm and delivery throughput beside
 * an empty database"), measured at each size and on the empty database:
 *
 * - **confirms/s:** test mode's simulate to `processing` through the merchant API, the transition a confirm makes
 *   (the payment's row and its rollup, the `payment.processing` event, its delivery scheduled), without the chain
 *   round trip a real confirm adds, which costs the same at any size;
 * - **deliveries/s:** `attemptDelivery` of pending deliveries to a receiver that answers at once (the claim, the
 *   signed POST, the attempt row and the delivery's outcome), as the `webhooks.deliver` task runs it.
 */
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { attemptDelivery } from '../../server/src/webhooks/delivery.js';
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

/** Deliveries per second: the merchant's pending deliveries (the creates' and confirms' events) attempted once. */
export async function measureDeliveries(s: Served, seconds: number, concurrency = 16): Promise<number> {
  const pending = (await s.fill
    .knex('webhook_deliveries')
    .where({ merchant_id: s.account.merchantId, live: false, status: 'pending' })
    .orderBy('created_at', 'desc')
    .limit(20_000)
    .pluck('id')) as string[];
  if (pending.length === 0) throw new Error('no pending delivery to measure');
  return throughput(pending, seconds, concurrency, async (id) => (await attemptDelivery(s.runtime, id)) !== null);
}
