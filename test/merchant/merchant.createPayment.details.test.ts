import assert from 'node:assert/strict';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import { openEventPayload } from '../../server/src/payments/eventPayload.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startHarness, usd, type Created, type Harness } from './harness.js';

const sold = {
  amount: { unit: 'iso4217/USD', value: '1450' },
  referenceId: 'order_77',
  description: 'Two flat whites\nand a croissant',
  lineItems: [
    { name: 'Flat white', quantity: 2, unitAmount: '500' },
    { name: 'Croissant', quantity: 1, unitAmount: '450' },
  ],
  buyer: { email: 'ada@example.com', name: 'Ada Lovelace' },
  metadata: { order_id: 'ORD-10482', channel: 'web' },
};

interface Snapshot {
  payment_id: string;
  description: string | null;
  line_items: { name: string; quantity: number; unit_amount: string }[];
  buyer: { email?: string; name?: string } | null;
  metadata: Record<string, string>;
}

describeEachDatabase('merchant.createPayment with what was sold', (get) => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  const post = (body: unknown, headers?: Record<string, string>) =>
    h.call('POST', '/v1/merchant/payment', { body, headers });
  const snapshot = async (id: string) => expectJson<Snapshot>(await h.call('GET', `/v1/merchant/payment/${id}`), 200);

  it('creates a payment with description, line items, buyer and metadata, and getPayment and the list answer them', async () => {
    const { paymentId } = await expectJson<Created>(await post(sold), 201);
    const got = await snapshot(paymentId);
    assert.equal(got.description, sold.description);
    assert.deepEqual(got.line_items, [
      { name: 'Flat white', quantity: 2, unit_amount: '500' },
      { name: 'Croissant', quantity: 1, unit_amount: '450' },
    ]);
    assert.deepEqual(got.buyer, sold.buyer);
    assert.deepEqual(got.metadata, sold.metadata);
    const list = await expectJson<{ data: Snapshot[] }>(await h.call('GET', '/v1/merchant/payments?limit=5'), 200);
    const listed = list.data.find((p) => p.payment_id === paymentId)!;
    assert.deepEqual(listed.buyer, sold.buyer);
    assert.deepEqual(listed.metadata, sold.metadata);
  });

  it('a keyed create stores the same details', async () => {
    const res = await post(sold, { 'Idempotency-Key': 'details-key-1' });
    const { paymentId } = await expectJson<Created>(res, 201);
    assert.deepEqual((await snapshot(paymentId)).buyer, sold.buyer);
  });

  it('stores the buyer sealed, and the payment.created event sealed, never in plaintext', async () => {
    const { paymentId } = await expectJson<Created>(await post(sold), 201);
    const row = (await findPayment(h.runtime.db.knex, paymentId))!;
    assert.ok(row.buyer_sealed?.startsWith('v1.'));
    // The plaintext, not a fragment a random ciphertext may hold (base64url has no "@" or space): /ada/i failed a
    // CI run when a ciphertext happened to contain "AdA".
    assert.doesNotMatch(row.buyer_sealed!, /ada@example\.com|Ada Lovelace/);
    const [event] = await listEventsForPayment(h.runtime.db.knex, paymentId);
    const raw = (await h.runtime.db.knex('events').where({ id: event!.id }).first()) as {
      payload: string;
      payload_sealed: string | null;
    };
    assert.equal(raw.payload, '');
    assert.doesNotMatch(raw.payload_sealed ?? '', /ada@example\.com|Ada Lovelace/);
    const envelope = JSON.parse(openEventPayload(h.runtime.secretBox, event!.id, raw)) as { data: Snapshot };
    assert.deepEqual(envelope.data.buyer, sold.buyer);
    assert.equal(envelope.data.description, sold.description);
  });

  it('a payment without them answers null, [], null and {}, and its event stays plaintext', async () => {
    const { paymentId } = await expectJson<Created>(await post(usd()), 201);
    const got = await snapshot(paymentId);
    assert.deepEqual([got.description, got.line_items, got.buyer, got.metadata], [null, [], null, {}]);
    const raw = (await h.runtime.db.knex('events').where({ payment_id: paymentId }).first()) as {
      payload: string;
      payload_sealed: string | null;
    };
    assert.equal(raw.payload_sealed, null);
    assert.equal((JSON.parse(raw.payload) as { data: Snapshot }).data.payment_id, paymentId);
  });

  it('refuses line items that do not add up to the amount, naming both numbers', async () => {
    const body = { ...sold, amount: { unit: 'iso4217/USD', value: '1449' } };
    const message = await expectError(await post(body), 400, 'params_validation');
    assert.match(message, /1450/);
    assert.match(message, /1449/);
  });

  it('refuses metadata over 50 keys, a bad key, an empty buyer and a description with control characters', async () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    await expectError(await post({ ...usd(), metadata: many }), 400, 'params_validation');
    await expectError(await post({ ...usd(), metadata: { 'bad key': 'v' } }), 400, 'params_validation');
    await expectError(await post({ ...usd(), metadata: { k: 'x'.repeat(501) } }), 400, 'params_validation');
    await expectError(await post({ ...usd(), buyer: {} }), 400, 'params_validation');
    await expectError(await post({ ...usd(), buyer: { email: 'not-an-email' } }), 400, 'params_validation');
    await expectError(await post({ ...usd(), description: 'tab\there' }), 400, 'params_validation');
    await expectError(
      await post({ ...usd(), lineItems: [{ name: 'x', quantity: 0, unitAmount: '1250' }] }),
      400,
      'params_validation',
    );
  });
});
