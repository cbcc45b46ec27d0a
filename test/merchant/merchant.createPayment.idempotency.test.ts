import assert from 'node:assert/strict';
import { claimIdempotencyKey, findIdempotencyKey } from '../../server/src/db/queries/idempotencyKeys.js';
import { IDEMPOTENCY_TTL_MS, IN_FLIGHT_TIMEOUT_MS, requestHash } from '../../server/src/payments/idempotency.js';
import { describeEachDatabase } from '../helpers/db.js';
import { createMerchantAccount } from '../helpers/fixtures.js';
import { createPayment, expectError, expectJson, startHarness, usd, type Created, type Harness } from './harness.js';

describeEachDatabase('merchant.createPayment.idempotency', (get) => {
  let h: Harness;
  let n = 0;
  before(async () => {
    h = await startHarness({ db: get().db });
  });
  after(() => h.close());

  const freshKey = () => `key-${++n}-${Date.now()}`;
  const post = (key: string, body: unknown = usd(), options: { live?: boolean; merchantId?: string } = {}) =>
    h.call('POST', '/v1/merchant/payment', {
      body,
      live: options.live,
      headers: { 'Idempotency-Key': key, ...(options.merchantId ? { 'Merchant-Id': options.merchantId } : {}) },
    });
  const paymentsOf = async (referenceId: string) =>
    (await h.runtime.db.knex('payments').where({ reference_id: referenceId }).select('id')) as { id: string }[];

  it('the same key and body replay the first answer, with Idempotent-Replayed: true, and create nothing', async () => {
    const key = freshKey();
    const body = { amount: { unit: 'iso4217/USD', value: '4200' }, referenceId: 'replay-1' };
    const first = await post(key, body);
    const created = await expectJson<Created>(first, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    h.clock.advance(5_000);
    // The same body with its keys in another order is the same request.
    const again = await post(key, { referenceId: 'replay-1', amount: { value: '4200', unit: 'iso4217/USD' } });
    assert.deepEqual(await expectJson<Created>(again, 201), created);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await paymentsOf('replay-1')).length, 1);
  });

  it('the same key with a different body is 409 idempotency_conflict', async () => {
    const key = freshKey();
    await expectJson(await post(key, { ...usd(), referenceId: 'conflict-1' }), 201);
    const message = await expectError(
      await post(key, { ...usd('1'), referenceId: 'conflict-1' }),
      409,
      'idempotency_conflict',
    );
    assert.match(message, /different request body/);
    assert.equal((await paymentsOf('conflict-1')).length, 1);
  });

  it('keys are scoped per merchant and per mode', async () => {
    const key = freshKey();
    const body = { ...usd(), referenceId: 'scoped-1' };
    const other = await createMerchantAccount(h.runtime, { partnerId: h.account.partnerId });
    const ids = new Set<string>();
    for (const options of [{}, { live: true }, { merchantId: other.merchantId }]) {
      ids.add((await expectJson<Created>(await post(key, body, options), 201)).paymentId);
    }
    assert.equal(ids.size, 3);
  });

  it('a refused request stores nothing: the caller fixes it and retries with the same key', async () => {
    const key = freshKey();
    await expectError(
      await post(key, { amount: { unit: 'iso4217/XYZ', value: '1' }, referenceId: 'fix-1' }),
      400,
      'params_validation',
    );
    assert.equal(
      await findIdempotencyKey(h.runtime.db.knex, { merchant_id: h.account.merchantId, live: false, key }),
      null,
    );
    const created = await expectJson<Created>(await post(key, { ...usd(), referenceId: 'fix-1' }), 201);
    assert.equal((await paymentsOf('fix-1'))[0]!.id, created.paymentId);
  });

  it('a request while the same key is in flight is 409; an in-flight row left by a crash is taken over', async () => {
    const key = freshKey();
    const body = { ...usd(), referenceId: 'inflight-1' };
    await claimIdempotencyKey(h.runtime.db.knex, {
      merchant_id: h.account.merchantId,
      live: false,
      key,
      request_hash: requestHash(body),
      created_at: h.clock.now(),
    });
    assert.match(await expectError(await post(key, body), 409, 'idempotency_conflict'), /in progress/);
    h.clock.advance(IN_FLIGHT_TIMEOUT_MS + 1);
    await expectJson(await post(key, body), 201);
    assert.equal((await paymentsOf('inflight-1')).length, 1);
  });

  it('keys are kept 24 hours: a key past them is new, and old keys are purged', async () => {
    const key = freshKey();
    const body = { ...usd(), referenceId: 'ttl-1' };
    const first = await expectJson<Created>(await post(key, body), 201);
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1);
    assert.deepEqual(await expectJson<Created>(await post(key, body), 201), first);
    h.clock.advance(2);
    const second = await expectJson<Created>(await post(key, body), 201);
    assert.notEqual(second.paymentId, first.paymentId);

    const old = freshKey();
    await expectJson(await post(old, { ...usd(), referenceId: 'ttl-2' }), 201);
    h.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    await expectJson(await post(freshKey()), 201);
    const scope = { merchant_id: h.account.merchantId, live: false };
    assert.equal(await findIdempotencyKey(h.runtime.db.knex, { ...scope, key: old }), null, 'purged');
  });

  it('validates the header: printable ASCII, 1 to 255 characters', async () => {
    await expectError(await post('caf\u00e9'), 400, 'header_not_ascii');
    await expectError(await post('a\tb'), 400, 'header_not_ascii');
    await expectError(await post(''), 400, 'params_validation');
    await expectError(await post('k'.repeat(256)), 400, 'params_validation');
    await expectJson(await post('k'.repeat(255)), 201);
    await expectJson(await post('a key with spaces ~!@#$%^&*()'), 201);
  });

  it('without a key every request creates a payment', async () => {
    const body = { ...usd(), referenceId: 'nokey-1' };
    await createPayment(h, body);
    await createPayment(h, body);
    assert.equal((await paymentsOf('nokey-1')).length, 2);
  });

  it('50 parallel creates with the same key produce exactly one payment, and every answer names it', async () => {
    const key = freshKey();
    const body = { ...usd(), referenceId: 'parallel-1' };
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(key, body)));
    const answers = await Promise.all(
      responses.map(async (r) => ({
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        body: (await r.json()) as Record<string, unknown>,
      })),
    );
    // The key commits with its payment, so a create that finds it taken replays the answer instead of a 409.
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([201]), JSON.stringify(answers.map((a) => a.body)));
    const created = answers.filter((a) => a.replayed === null);
    assert.equal(created.length, 1);
    assert.ok(answers.every((a) => a.body.paymentId === created[0]!.body.paymentId));
    const rows = await paymentsOf('parallel-1');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.id, created[0]!.body.paymentId);
    const events = await h.runtime.db.knex('events').where({ payment_id: rows[0]!.id });
    assert.equal(events.length, 1);
    // Once the first request finished, a retry replays it.
    const retry = await post(key, body);
    assert.equal((await expectJson<Created>(retry, 201)).paymentId, rows[0]!.id);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  });
});
