/**
 * Events of a payment with a buyer are stored sealed (docs/decisions.md §30.3) and delivered opened: the first send,
 * a resend and a replay all carry the buyer, signed as any other event, on both databases (PostgreSQL claims a
 * delivery and reads its event in one statement, SQLite in three).
 */
import assert from 'node:assert/strict';
import { Webhook } from '@paygate/webhook-verifier';
import type { Runtime } from '@paygate/server';
import { checkDetails } from '../../server/src/payments/details.js';
import { createPayment } from '../../server/src/payments/lifecycle.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { replaySince, resendDelivery } from '../../server/src/webhooks/recovery.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

const DAY = 86_400_000;
const buyer = { email: 'sealed.buyer@example.com', name: 'Sealed Buyer' };

interface Delivered {
  type: string;
  data: { payment_id: string; buyer: unknown; description: string | null; metadata: Record<string, string> };
}

describeEachDatabase('webhooks.delivery of a payment with a buyer', (get) => {
  let runtime: Runtime;
  let clock: TestClock;
  let receiver: Receiver;
  let merchantId: string;
  let secret: string;

  before(async () => {
    clock = testClock();
    runtime = await testRuntime({ db: get().db, clock });
    receiver = await startReceiver();
    merchantId = await seedMerchant(runtime.db.knex, 'mer_sealedbuyer00001');
    const created = await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
    secret = created.secret;
  });
  after(async () => {
    await receiver.close();
    await runtime.close();
  });

  it('delivers, resends and replays the sealed event with the buyer, and the verifier accepts each', async () => {
    const payment = await createPayment(runtime, {
      merchantId,
      live: false,
      referenceId: 'sealed-1',
      amount: { unit: 'iso4217/USD', value: '900' },
      expiresAt: clock.now() + 60 * DAY,
      successUrl: null,
      errorUrl: null,
      details: checkDetails({ buyer, description: 'Three teas', metadata: { order: 'T-3' } }, '900'),
    });
    await runtime.jobs.drain();
    const [first] = (await runtime.db.knex('webhook_deliveries').select('id')) as { id: string }[];
    await resendDelivery(runtime, merchantId, 'test', first!.id);
    await runtime.jobs.drain();
    await runtime.db.knex('webhook_deliveries').update({ status: 'failed', next_attempt_at: null });
    assert.equal(await replaySince(runtime, merchantId, 'test', clock.now()), 1);
    await runtime.jobs.drain();

    assert.equal(receiver.received.length, 3);
    const copies = (await runtime.db.knex('webhook_deliveries').pluck('payload')) as (string | null)[];
    assert.deepEqual(copies, [null, null, null], 'no delivery keeps a plaintext copy of the envelope');
    const verifier = new Webhook(secret, { now: () => Math.floor(clock.now() / 1000) });
    for (const hit of receiver.received) {
      const event = verifier.verify(hit.body, hit.headers) as Delivered;
      assert.equal(event.type, 'payment.created');
      assert.equal(event.data.payment_id, payment.id);
      assert.deepEqual(event.data.buyer, buyer);
      assert.equal(event.data.description, 'Three teas');
      assert.deepEqual(event.data.metadata, { order: 'T-3' });
    }
  });
});
