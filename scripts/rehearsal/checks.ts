/** What "nothing lost" means, read from the database as an operator reads it, and the deliveries at the receiver. */
import pg from 'pg';
import { eventually } from '../../test/helpers/wait.js';
import type { Deployment } from './deployment.js';
import type { Traffic } from './traffic.js';

/** Every event of the merchant, in the outbox, that the receiver has not had yet (after waiting up to `timeoutMs`). */
export async function undelivered(d: Deployment, timeoutMs: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: d.pg.url });
  await client.connect();
  try {
    let missing: string[] = [];
    await eventually(
      'every event at the receiver',
      async () => {
        const { rows } = await client.query<{ id: string }>('SELECT id FROM events WHERE merchant_id = $1', [
          d.merchant.id,
        ]);
        missing = rows.map((r) => r.id).filter((id) => !d.receiver.events.has(id));
        return missing.length === 0;
      },
      { timeoutMs, intervalMs: 250 },
    ).catch(() => undefined);
    return missing;
  } finally {
    await client.end();
  }
}

/** Paid payments that did not end succeeded (a payment in flight during a step that was lost or failed). */
export function unpaid(traffic: Traffic, from = 0): string[] {
  return traffic.paid
    .slice(from)
    .filter((p) => p.status !== 'succeeded')
    .map((p) => `${p.paymentId || '(not created)'} ${p.kind}: ${p.status}`);
}

/** Creates `n` payments and moves each to succeeded with the merchant's test simulation: a burst of deliveries. */
export async function deliveryBurst(d: Deployment, traffic: Traffic, n: number): Promise<string[]> {
  const ids: string[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async (_, lane) => {
      for (let k = lane; k < n; k += 4) {
        await traffic.op('burst', async (f) => {
          const created = await traffic
            .merchant(f)
            .createPayment({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: `burst-${k}` });
          ids.push(created.paymentId);
          for (const to of ['processing', 'succeeded']) {
            const res = await f(`${d.baseUrl}/v1/merchant/test/payment/${created.paymentId}/simulate`, {
              method: 'POST',
              headers: {
                'Content-Type': 'application/json',
                'Api-Key': d.merchant.apiKey,
                'Merchant-Id': d.merchant.id,
              },
              body: JSON.stringify({ to }),
            });
            if (res.status !== 200) throw new Error(`simulate ${to}: ${res.status} ${await res.text()}`);
          }
        });
      }
    }),
  );
  return ids;
}
