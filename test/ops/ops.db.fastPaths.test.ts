/**
 * The hand-tuned storage paths that BENCHMARKS.md shows are needed (group commit of creates and its one-statement
 * inserts, combined status reads, the webhook attempt's shared statement, SQLite's reused statements) against the
 * plain path (the query builder, one call at a time) on the same inputs: both must give the same results.
 */
import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import type { Runtime } from '@paygate/server';
import { insertCreates, insertCreatesAlone, insertCreatesOneByOne } from '../../server/src/db/queries/creates.js';
import { insertEvents, listEventsForPayment, type EventRow } from '../../server/src/db/queries/events.js';
import { createStatusReads, findPaymentStatus } from '../../server/src/db/queries/paymentStatus.js';
import { stageColumns } from '../../server/src/db/queries/paymentStages.js';
import { findPayment, insertPayments, listPayments, type PaymentRow } from '../../server/src/db/queries/payments.js';
import {
  claimDelivery,
  claimDeliveryWithContext,
  createDeliverySteps,
  findDelivery,
  findEndpoint,
  finishAttempt,
  insertAttempt,
  listAttempts,
  recordDeliveredAttempt,
  recordsDeliveredAttemptInOneStatement,
  type AttemptRow,
  type ClaimedDelivery,
} from '../../server/src/db/queries/webhooks.js';
import { newId } from '../../server/src/ids.js';
import { findIdempotencyKey } from '../../server/src/db/queries/idempotencyKeys.js';
import { createPayment, type NewPayment } from '../../server/src/payments/lifecycle.js';
import { createMerchantPayment } from '../../server/src/payments/merchantPayments.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

/** Texts that a hand-built statement could mangle: array-literal syntax, escapes, an empty string, non-ASCII. */
const awkward = ['{"a,b"}', 'back\\slash\\"quote', 'NULL', '', ' café ☃ 𝄞 '];

/** `text` with every id replaced by a name, so that rows of the two paths compare. */
function withoutIds(text: string, ids: Record<string, string>): string {
  return Object.entries(ids).reduce((t, [name, id]) => t.split(id).join(`<${name}>`), text);
}

const withoutId = <T extends { id: string }>({ id: _id, ...rest }: T) => rest;

describeEachDatabase('ops.db fast paths', (get, dialect) => {
  let runtime: Runtime;
  let clock: TestClock;
  let merchantId: string;
  const knex = () => get().db.knex;

  before(async () => {
    clock = testClock();
    runtime = await testRuntime({ db: get().db, clock });
    merchantId = await seedMerchant(knex());
  });
  after(() => runtime.close());

  const newPayment = (referenceId: string, i: number): NewPayment => ({
    merchantId,
    live: i % 2 === 1,
    referenceId,
    amount: { unit: 'iso4217/USD', value: String(1000 + i) },
    expiresAt: clock.now() + 3_600_000,
    successUrl: i % 3 === 0 ? null : `https://shop.example/ok?q=${encodeURIComponent(referenceId)}`,
    errorUrl: i % 3 === 1 ? null : 'https://shop.example/error',
  });

  /** The row of a new payment as the lifecycle makes it, created `i` ms after the clock's time. */
  const paymentRow = (p: NewPayment, i: number) => ({
    id: newId.payment(),
    merchant_id: p.merchantId,
    live: p.live,
    status: 'requires_action' as const,
    state_version: 0,
    reference_id: p.referenceId,
    amount_unit: p.amount.unit,
    amount_value: p.amount.value,
    success_url: p.successUrl,
    error_url: p.errorUrl,
    created_at: clock.now() + i,
    expires_at: p.expiresAt,
    updated_at: clock.now() + i,
  });

  /** A payment and its events as stored, with its own ids named. */
  async function stored(id: string) {
    const payment = (await findPayment(knex(), id))!;
    const events = await listEventsForPayment(knex(), id);
    const ids = Object.fromEntries([['payment', id], ...events.map((e, i) => [`event${i}`, e.id])]) as Record<
      string,
      string
    >;
    return JSON.parse(withoutIds(JSON.stringify({ payment, events }), ids)) as unknown;
  }

  it('creates committed together store what creates committed one at a time store', async () => {
    const inputs = awkward.flatMap((t, i) => [newPayment(`ref ${t}`, i), newPayment(`ref ${t} again`, i + 1)]);
    const together = await Promise.all(inputs.map((input) => createPayment(runtime, input)));
    const alone: PaymentRow[] = [];
    for (const input of inputs) alone.push(await knex().transaction((trx) => createPayment(runtime, input, trx)));
    for (const [i, row] of together.entries()) assert.deepEqual(await stored(row.id), await stored(alone[i]!.id));
  });

  it('keyed creates committed together store what keyed creates committed one at a time store', async () => {
    const requests = awkward.map((t, i) => ({
      key: `key ${t} ${i}`,
      live: i % 2 === 1,
      body: { amount: { unit: 'iso4217/USD', value: String(500 + i) }, referenceId: `keyed ${t}` },
    }));
    const create = (r: (typeof requests)[number], prefix: string) =>
      createMerchantPayment(runtime, { merchantId, live: r.live }, r.body, `${prefix} ${r.key}`);
    const together = await Promise.all(requests.map((r) => create(r, 'together')));
    const alone: Awaited<ReturnType<typeof createMerchantPayment>>[] = [];
    for (const r of requests) alone.push(await create(r, 'alone'));
    const keyOf = async (r: (typeof requests)[number], prefix: string, paymentId: string) => {
      const row = (await findIdempotencyKey(knex(), {
        merchant_id: merchantId,
        live: r.live,
        key: `${prefix} ${r.key}`,
      }))!;
      const { key: _key, ...rest } = row;
      return JSON.parse(withoutIds(JSON.stringify(rest), { payment: paymentId })) as unknown;
    };
    for (const [i, r] of requests.entries()) {
      const [fast, plain] = [together[i]!, alone[i]!];
      assert.equal(fast.replayed, false);
      assert.deepEqual(
        JSON.parse(withoutIds(JSON.stringify(fast.body), { payment: fast.body.paymentId })),
        JSON.parse(withoutIds(JSON.stringify(plain.body), { payment: plain.body.paymentId })),
      );
      assert.deepEqual(await stored(fast.body.paymentId), await stored(plain.body.paymentId));
      assert.deepEqual(await keyOf(r, 'together', fast.body.paymentId), await keyOf(r, 'alone', plain.body.paymentId));
    }
  });

  it('payments and events inserted in one statement read back as those the query builder inserts', async () => {
    const rows = awkward.map((t, i) => paymentRow(newPayment(`insert ${t}`, i), i));
    const copies = rows.map((r) => ({ ...r, id: newId.payment() }));
    const eventOf = (r: (typeof rows)[number], i: number): EventRow => ({
      id: newId.event(),
      payment_id: r.id,
      merchant_id: r.merchant_id,
      live: r.live,
      type: 'payment.created',
      state_version: 0,
      created_at: r.created_at,
      payload: JSON.stringify({ reference: r.reference_id, n: i, text: awkward[i] }),
    });
    await knex().transaction(async (trx) => {
      await insertPayments(trx, rows);
      await insertEvents(trx, rows.map(eventOf));
    });
    const empty = Object.fromEntries(stageColumns.map((c) => [c, null]));
    for (const [i, r] of copies.entries()) {
      await knex()('payments').insert({ ...r, ...empty });
      await knex()('events').insert(eventOf(r, i));
    }
    for (const [i, r] of rows.entries()) {
      const [fast, plain] = [r.id, copies[i]!.id];
      assert.deepEqual(withoutId((await findPayment(knex(), fast))!), withoutId((await findPayment(knex(), plain))!));
      const events = async (id: string) =>
        (await listEventsForPayment(knex(), id)).map(({ id: _id, payment_id: _p, ...e }) => e);
      assert.deepEqual(await events(fast), await events(plain));
    }
  });

  /** Creates of each kind (no key, a new key, a key already held) over the awkward texts; `side` names the keys. */
  const createRowsFor = (side: string) =>
    awkward.flatMap((t, i) =>
      (['none', 'new', 'taken'] as const).map((keying) => {
        const p = newPayment(`creates ${t} ${keying}`, i);
        const payment = paymentRow(p, i);
        const event: EventRow = {
          id: newId.event(),
          payment_id: payment.id,
          merchant_id: payment.merchant_id,
          live: payment.live,
          type: 'payment.created',
          state_version: 0,
          created_at: payment.created_at,
          payload: JSON.stringify({ payment: payment.id, text: t }),
        };
        const key =
          keying === 'none'
            ? undefined
            : {
                merchant_id: merchantId,
                live: p.live,
                key: `${side} ${keying} ${t} ${i}`,
                request_hash: `hash ${t}`,
                created_at: clock.now(),
                response_status: 201,
                response_body: JSON.stringify({ paymentId: payment.id, text: t }),
              };
        return { payment, event, key };
      }),
    );

  type CreateRowsOf = ReturnType<typeof createRowsFor>;

  /** Keys another request holds already, for the creates keyed ' taken ': those creates insert nothing. */
  async function holdTakenKeys(rows: CreateRowsOf): Promise<void> {
    for (const r of rows.filter((x) => x.key?.key.includes(' taken ')))
      await knex()('idempotency_keys').insert({ ...r.key!, request_hash: 'other', response_body: 'other' });
  }

  /** What went in by one path is stored as what went in by the other: each payment row whole, its events, its key. */
  async function assertStoredAlike(fast: CreateRowsOf, plain: CreateRowsOf, wentFast: boolean[]): Promise<void> {
    for (const [i, f] of fast.entries()) {
      const p = plain[i]!;
      assert.equal(await findPayment(knex(), f.payment.id).then(Boolean), wentFast[i]);
      if (wentFast[i]) {
        const names = (r: typeof f) => ({ payment: r.payment.id, event: r.event.id });
        // The stored row whole (settlement_mode and the empty stage columns too), beside the payment as read.
        const read = async (r: typeof f) => {
          const raw = (await knex()('payments').where({ id: r.payment.id }).first()) as Record<string, unknown>;
          const both = { stored: await stored(r.payment.id), raw };
          return JSON.parse(withoutIds(JSON.stringify(both), names(r))) as unknown;
        };
        assert.deepEqual(await read(f), await read(p));
      }
      if (f.key) {
        const keyRow = async (r: typeof f) => {
          const { merchant_id, live, key } = r.key!;
          const { key: _key, ...rest } = (await findIdempotencyKey(knex(), { merchant_id, live, key }))!;
          return JSON.parse(withoutIds(JSON.stringify(rest), { payment: r.payment.id })) as unknown;
        };
        assert.deepEqual(await keyRow(f), await keyRow(p));
      }
    }
  }

  it('keys, payments and events of creates inserted by insertCreates store what the separate inserts store', async () => {
    // On SQLite insertCreates runs fixed one-row statements; on PostgreSQL one statement.
    const [fast, plain] = [createRowsFor('fast'), createRowsFor('plain')];
    for (const rows of [fast, plain]) await holdTakenKeys(rows);
    const wentFast = await knex().transaction((trx) => insertCreates(trx, fast));
    const wentPlain = await knex().transaction((trx) => insertCreatesOneByOne(trx, plain));
    assert.deepEqual(wentFast, wentPlain);
    assert.deepEqual(
      wentFast,
      fast.map((r) => !r.key?.key.includes(' taken ')),
    );
    await assertStoredAlike(fast, plain, wentFast);
  });

  if (dialect === 'sqlite')
    it('SQLite makes creates in a transaction only: no one-statement create to compare', async () => {
      await assert.rejects(insertCreatesAlone(knex(), createRowsFor('sqlite')), /PostgreSQL only/);
    });
  else {
    it('creates inserted alone in one statement store what the separate inserts store', async () => {
      const [fast, plain] = [createRowsFor('alone'), createRowsFor('alone plain')];
      for (const rows of [fast, plain]) await holdTakenKeys(rows);
      const outcome = await insertCreatesAlone(knex(), fast);
      const wentPlain = await knex().transaction((trx) => insertCreatesOneByOne(trx, plain));
      assert.deepEqual(outcome, { inserted: wentPlain });
      await assertStoredAlike(fast, plain, wentPlain);
    });

    it('creates inserted alone: a merchant with a webhook endpoint for the mode makes the statement insert nothing', async () => {
      const other = await seedMerchant(knex(), 'mer_fastpathsalone001');
      const { endpoint: live } = await createEndpoint(runtime, other, 'test', { url: 'http://127.0.0.1:9/alone' });
      await knex()('webhook_endpoints').where({ id: live.id }).update({ mode: 'live' });
      // A deleted endpoint and one for the other mode do not count.
      const gone = await seedMerchant(knex(), 'mer_fastpathsalone002');
      const { endpoint: deleted } = await createEndpoint(runtime, gone, 'test', { url: 'http://127.0.0.1:9/gone' });
      await knex()('webhook_endpoints').where({ id: deleted.id }).update({ deleted_at: clock.now() });
      const rowsOf = (merchant: string, live: boolean, tag: string) =>
        createRowsFor(tag)
          .slice(0, 3)
          .map((r) => ({
            payment: { ...r.payment, merchant_id: merchant, live },
            event: { ...r.event, merchant_id: merchant, live },
            key: r.key && { ...r.key, merchant_id: merchant, live },
          }));
      const free = [...rowsOf(other, false, 'other test'), ...rowsOf(gone, false, 'gone test')];
      assert.deepEqual(await insertCreatesAlone(knex(), free), { inserted: [true, true, true, true, true, true] });
      const blocked = [...rowsOf(merchantId, false, 'mixed own'), ...rowsOf(other, true, 'mixed other live')];
      assert.deepEqual(await insertCreatesAlone(knex(), blocked), { endpoints: [{ merchantId: other, live: true }] });
      for (const r of blocked) {
        assert.equal(await findPayment(knex(), r.payment.id), null);
        assert.equal(await findIdempotencyKey(knex(), r.key ?? { merchant_id: '', live: false, key: '' }), null);
      }
      const events = (await knex()('events').whereIn(
        'id',
        blocked.map((r) => r.event.id),
      )) as unknown[];
      assert.deepEqual(events, []);
    });
  }

  it('status reads made together answer what one read at a time by the query builder answers', async () => {
    const known = (await listPayments(knex(), { merchantId, live: false, limit: 5 })).concat(
      await listPayments(knex(), { merchantId, live: true, limit: 5 }),
    );
    const asked = [...known.map((p) => p.id), 'pay_000000000000000000000000', 'not-an-id', known[0]!.id];
    const reads = createStatusReads(knex());
    const together = await Promise.all(asked.map((id) => findPaymentStatus(reads, id)));
    for (const [i, id] of asked.entries()) {
      const raw = (await knex()('payments')
        .select('id', 'merchant_id', 'live', 'status', 'expires_at')
        .where({ id })
        .first()) as
        { id: string; merchant_id: string; live: unknown; status: string; expires_at: unknown } | undefined;
      const plain = raw
        ? { ...raw, live: raw.live === true || raw.live === 1, expires_at: Number(raw.expires_at) }
        : null;
      assert.deepEqual(together[i], plain, id);
    }
  });

  describe('webhook attempts', () => {
    const LEASE_MS = 60_000;
    let deliveryIds: string[];
    let receiver: Receiver;
    /** The owner of each of the first four deliveries' lease, as the combined claims left it. */
    const fastOwners: string[] = [];

    before(async () => {
      // Nothing is sent: the receiver only gives the endpoint an address that passes its check.
      receiver = await startReceiver();
      await createEndpoint(runtime, merchantId, 'test', { url: `${receiver.url}/hooks` });
      // Two payments alike for each of four: the first of each pair goes the fast way, the second the plain way.
      deliveryIds = [];
      for (let i = 0; i < 8; i++) {
        const payment = await createPayment(runtime, newPayment(`hook ${i % 4}`, 2 * (i % 4)));
        const [delivery] = (await knex()('webhook_deliveries').where({ payment_id: payment.id }).select('id')) as {
          id: string;
        }[];
        deliveryIds.push(delivery!.id);
      }
      assert.equal(deliveryIds.length, 8);
    });
    after(() => receiver.close());

    /** What an attempt sees of its claim, its own ids and its owner named. */
    function seen(claimed: ClaimedDelivery | null): unknown {
      if (!claimed) return null;
      const { delivery } = claimed;
      const ids = { delivery: delivery.id, event: delivery.event_id, payment: delivery.payment_id };
      return JSON.parse(withoutIds(JSON.stringify(claimed), ids).replace(/"(fast|plain)-\d+"/g, '"owner"'));
    }

    it('claims made together answer what a claim and its reads one at a time answer', async () => {
      const [fast, plain] = [deliveryIds.slice(0, 4), deliveryIds.slice(4)];
      const now = clock.now();
      // Each delivery twice at once: one claim wins, in the same statement or the next.
      const steps = createDeliverySteps(knex());
      const together = await Promise.all(
        [...fast, ...fast].map((id, i) => claimDeliveryWithContext(steps, id, `fast-${i}`, now, LEASE_MS)),
      );
      for (const [i, id] of plain.entries()) {
        const delivery = await claimDelivery(knex(), id, `plain-${i}`, now, LEASE_MS);
        assert.ok(delivery);
        const endpoint = await findEndpoint(knex(), delivery.endpoint_id);
        const event = (await knex()('events').where({ id: delivery.event_id }).first('payload', 'payload_sealed')) as {
          payload: string;
          payload_sealed: string | null;
        };
        const alone: ClaimedDelivery = {
          delivery,
          endpoint,
          payload: delivery.payload ?? event.payload,
          payloadSealed: delivery.payload === null ? event.payload_sealed : null,
        };
        assert.equal(await claimDelivery(knex(), id, `plain-${i + 4}`, now, LEASE_MS), null);
        const won = [together[i], together[i + 4]].filter((c) => c !== null);
        assert.equal(won.length, 1);
        assert.deepEqual(seen(won[0]!), seen(alone));
        fastOwners.push(won[0]!.delivery.lease_owner!);
      }
    });

    if (dialect === 'sqlite')
      it('SQLite records a success only in a transaction: no one-statement record to compare', () => {
        assert.equal(recordsDeliveredAttemptInOneStatement(knex()), false);
      });
    else
      it('successes recorded in one statement store what a record in a transaction stores', async () => {
        assert.equal(recordsDeliveredAttemptInOneStatement(knex()), true);
        const [fast, plain] = [deliveryIds.slice(0, 4), deliveryIds.slice(4)];
        const ended = clock.now() + 5;
        const attempt = (deliveryId: string): AttemptRow => ({
          delivery_id: deliveryId,
          attempt: 1,
          started_at: clock.now(),
          status: 200,
          latency_ms: 3,
          error: null,
          response_body: 'ok "quoted" \\ ☃',
          delivered: true,
        });
        // The last record of each side names an owner that holds no lease: it must not be kept.
        const steps = createDeliverySteps(knex());
        const kept = await Promise.all(
          [...fast, fast[0]!].map((id, i) =>
            recordDeliveredAttempt(steps, fastOwners[i] ?? 'fast-none', attempt(id), ended),
          ),
        );
        const keptAlone: boolean[] = [];
        for (const [i, id] of [...plain, plain[0]!].entries()) {
          const owner = i < plain.length ? `plain-${i}` : 'plain-none';
          keptAlone.push(
            await knex().transaction(async (trx) => {
              const done = await finishAttempt(trx, id, owner, {
                status: 'delivered',
                attempt_count: 1,
                next_attempt_at: null,
                delivered_at: clock.now(),
                updated_at: ended,
              });
              if (done) await insertAttempt(trx, attempt(id));
              return done;
            }),
          );
        }
        assert.deepEqual(kept, keptAlone);
        const after = async (deliveryId: string) => {
          const delivery = (await findDelivery(knex(), deliveryId))!;
          const ids = { delivery: delivery.id, event: delivery.event_id, payment: delivery.payment_id };
          // Attempt rows also carry their serial number, which is the order they were written in.
          const attempts = (await listAttempts(knex(), deliveryId)).map((attempt) => {
            const { id: _id, ...rest } = attempt as AttemptRow & { id?: number };
            return rest;
          });
          return JSON.parse(withoutIds(JSON.stringify({ delivery, attempts }), ids)) as unknown;
        };
        for (const [i, id] of fast.entries()) assert.deepEqual(await after(id), await after(plain[i]!));
      });
  });

  if (dialect === 'sqlite')
    it('reads through reused statements answer what a connection that prepares every text answers', async () => {
      // A second connection to the same file, as knex opens one: every query prepared anew, nothing reused.
      const plain = knexFactory({
        client: 'better-sqlite3',
        connection: { filename: get().url.slice('sqlite:'.length) },
        useNullAsDefault: true,
      });
      try {
        const reads = async (db: Knex) => {
          const payments = await listPayments(db, { merchantId, live: false, limit: 100 });
          const ids = payments.map((p) => p.id);
          const statusReads = createStatusReads(db);
          return {
            payments,
            one: await Promise.all(ids.map((id) => findPayment(db, id))),
            events: await Promise.all(ids.map((id) => listEventsForPayment(db, id))),
            statuses: await Promise.all(ids.map((id) => findPaymentStatus(statusReads, id))),
          };
        };
        // Twice on ours, so the second pass runs statements it prepared in the first.
        const first = await reads(knex());
        assert.ok(first.payments.length > 10);
        assert.deepEqual(await reads(knex()), first);
        assert.deepEqual(await reads(plain), first);
      } finally {
        await plain.destroy();
      }
    });
});
