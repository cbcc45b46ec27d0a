/**
 * Status reads (db/queries/paymentStatus.ts): the polls that arrive together share one statement;
 * each still gets its own payment, or nothing for an id that does not exist.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { Runtime } from '@paygate/server';
import { createStatusReads, findPaymentStatus } from '../../server/src/db/queries/paymentStatus.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { testClock, testRuntime } from '../helpers/runtime.js';

/** Counts the connections taken from the pool while `work` runs: one per statement outside a transaction. */
async function countAcquires<T>(knex: Knex, work: () => Promise<T>): Promise<{ result: T; acquires: number }> {
  const client = knex.client as Knex.Client;
  const acquire = client.acquireConnection.bind(client);
  let acquires = 0;
  client.acquireConnection = () => {
    acquires++;
    return acquire();
  };
  try {
    return { result: await work(), acquires };
  } finally {
    client.acquireConnection = acquire;
  }
}

describeEachDatabase('payments.status reads', (get) => {
  let runtime: Runtime;
  const ids: string[] = [];

  before(async () => {
    const clock = testClock();
    runtime = await testRuntime({ db: get().db, clock });
    const merchantId = await seedMerchant(get().db.knex);
    for (const live of [false, true]) {
      const row = await createPayment(runtime, {
        merchantId,
        live,
        referenceId: `status-${live}`,
        amount: { unit: 'iso4217/USD', value: '1250' },
        expiresAt: clock.now() + 3_600_000,
        successUrl: null,
        errorUrl: null,
      });
      ids.push(row.id);
    }
  });
  after(() => runtime.close());

  it('reads made together: each gets its own payment or null', async () => {
    const asked = Array.from({ length: 30 }, (_, i) => (i % 3 === 2 ? `pay_unknown${i}` : ids[i % 3]!));
    const reads = createStatusReads(get().db.knex);
    const { result, acquires } = await countAcquires(get().db.knex, () =>
      Promise.all(asked.map((id) => findPaymentStatus(reads, id))),
    );
    for (const [i, row] of result.entries()) {
      if (i % 3 === 2) assert.equal(row, null);
      else {
        assert.equal(row?.id, asked[i]);
        assert.equal(row?.live, i % 3 === 1);
        assert.equal(row?.status, 'requires_action');
      }
    }
    // One statement for all of them.
    assert.equal(acquires, 1);
  });
});
