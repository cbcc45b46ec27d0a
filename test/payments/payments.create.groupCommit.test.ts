/**
 * Group commit of creates (payments/lifecycle.ts): creates made together share one transaction, yet each comes out
 * as if it had been made alone, with its own payment, its own `payment.created` event and its own delivery, and a
 * create that fails does not take the others down with it.
 */
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pg from 'pg';
import type { Runtime } from '@paygate/server';
import { listEventsForPayment } from '../../server/src/db/queries/events.js';
import { findPayment } from '../../server/src/db/queries/payments.js';
import {
  createPayment,
  paymentCreates,
  type LifecycleDeps,
  type NewPayment,
} from '../../server/src/payments/lifecycle.js';
import { createMerchantPayment, type CreatePaymentRequest } from '../../server/src/payments/merchantPayments.js';
import { createEndpoint } from '../../server/src/webhooks/endpoints.js';
import { describeEachDatabase } from '../helpers/db.js';
import { seedMerchant } from '../helpers/fixtures.base.js';
import { testClock, testRuntime, type TestClock } from '../helpers/runtime.js';

/** Deps with other hooks or another database than the runtime's group their creates in a batcher of their own. */
function withOwnCreates<D extends LifecycleDeps>(deps: D): D {
  return { ...deps, creates: paymentCreates(deps) };
}

/**
 * The statements run from now on, transactions included, lower-cased: knex's (its query events), and on PostgreSQL
 * every statement any client sends (the one-statement creates bypass knex), with the prepared statement's name.
 */
function recordStatements(knex: Knex): { statements: string[]; named: string[]; stop: () => void } {
  const statements: string[] = [];
  const named: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql.trim().toLowerCase());
  knex.on('query', listener);
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as { name?: string } | string;
    if (typeof config === 'object' && config?.name) named.push(config.name);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    statements,
    named,
    stop: () => {
      knex.off('query', listener);
      pg.Client.prototype.query = query;
    },
  };
}

/** Runs `work` while recording statements (recordStatements), and stops recording whatever its outcome. */
async function recording<T>(
  knex: Knex,
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[]; named: string[] }> {
  const recorder = recordStatements(knex);
  try {
    return { result: await work(), statements: recorder.statements, named: recorder.named };
  } finally {
    recorder.stop();
  }
}

/**
 * A knex whose work happens but whose caller hears `lost` instead of the outcome, as when the connection drops after
 * the database committed: a transaction commits, then fails; a statement run alone (PostgreSQL's one-statement
 * creates) runs, then fails, unless `statementsAlone` is false.
 */
function losingTheOutcome(knex: Knex, lost: Error, { statementsAlone = true } = {}): Knex {
  const target = knex.client as Knex.Client;
  // Each connection lent out, as the caller sees it, to the pool's own (which is the one to give back).
  const lent = new Map<object, object>();
  const client = new Proxy(target, {
    get: (t, property, receiver) => {
      if (property === 'acquireConnection')
        return async () => {
          const conn = (await target.acquireConnection()) as { query?: unknown };
          if (!statementsAlone || typeof conn.query !== 'function') return conn;
          const seen = new Proxy(conn, {
            get: (c, p, r) =>
              p === 'query'
                ? async (...args: unknown[]) => {
                    await (conn.query as (...a: unknown[]) => Promise<unknown>).apply(conn, args);
                    throw lost;
                  }
                : Reflect.get(c, p, r),
          });
          lent.set(seen, conn);
          return seen;
        };
      if (property === 'releaseConnection')
        return (conn: object) => {
          const own = lent.get(conn) ?? conn;
          lent.delete(conn);
          return target.releaseConnection(own);
        };
      return Reflect.get(t, property, receiver);
    },
  });
  return new Proxy(knex, {
    get: (target, property, receiver) =>
      property === 'transaction'
        ? async (work: Parameters<typeof knex.transaction>[0]) => {
            await knex.transaction(work as (trx: unknown) => Promise<unknown>);
            throw lost;
          }
        : property === 'client'
          ? client
          : Reflect.get(target, property, receiver),
  });
}

describeEachDatabase('payments.create group commit', (get, dialect) => {
  let runtime: Runtime;
  let clock: TestClock;
  let merchantId: string;

  before(async () => {
    clock = testClock();
    runtime = await testRuntime({ db: get().db, clock });
    merchantId = await seedMerchant(get().db.knex);
  });
  after(() => runtime.close());

  const input = (referenceId: string, merchant = merchantId): NewPayment => ({
    merchantId: merchant,
    live: false,
    referenceId,
    amount: { unit: 'iso4217/USD', value: '1250' },
    expiresAt: clock.now() + 3_600_000,
    successUrl: null,
    errorUrl: null,
  });

  /**
   * One commit for the batch: on SQLite its transaction's; on PostgreSQL, for a merchant without a webhook endpoint,
   * one statement that commits alone and no transaction.
   */
  function assertOneCommit(recorded: { statements: string[]; named: string[] }): void {
    const commits = recorded.statements.filter((s) => s.startsWith('commit')).length;
    if (dialect === 'sqlite') assert.equal(commits, 1);
    else {
      assert.equal(commits, 0);
      assert.deepEqual(recorded.named, ['paygate_insert_creates_alone']);
    }
  }

  it('creates made together: one commit, each payment with its own created event at version 0', async () => {
    const { result: rows, ...recorded } = await recording(get().db.knex, () =>
      Promise.all(Array.from({ length: 20 }, (_, i) => createPayment(runtime, input(`order-${i}`)))),
    );
    assertOneCommit(recorded);
    assert.equal(new Set(rows.map((r) => r.id)).size, 20);
    for (const [i, row] of rows.entries()) {
      const stored = await findPayment(get().db.knex, row.id);
      assert.equal(stored?.reference_id, `order-${i}`);
      const events = await listEventsForPayment(get().db.knex, row.id);
      assert.deepEqual(
        events.map((e) => [e.type, e.state_version]),
        [['payment.created', 0]],
      );
      assert.equal(JSON.parse(events[0]!.payload).data.payment_id, row.id);
    }
  });

  it('a create that fails in a shared transaction fails alone; the others are created', async () => {
    const inputs = [input('good-1'), input('bad', 'mer_doesnotexist000000'), input('good-2')];
    const results = await Promise.allSettled(inputs.map((i) => createPayment(runtime, i)));
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    for (const result of results) {
      if (result.status === 'fulfilled') assert.ok(await findPayment(get().db.knex, result.value.id));
    }
    const bad = (await get().db.knex('payments').where({ reference_id: 'bad' }).count({ n: '*' })) as { n: unknown }[];
    assert.equal(Number(bad[0]!.n), 0);
  });

  it('with a webhook endpoint: one delivery per created event, the endpoint read once per transaction', async () => {
    const merchant = await seedMerchant(get().db.knex, 'mer_groupcommithooks1');
    await createEndpoint(runtime, merchant, 'test', { url: 'http://127.0.0.1:9/hooks' });
    const { result: rows, ...recorded } = await recording(get().db.knex, () =>
      Promise.all(Array.from({ length: 10 }, (_, i) => createPayment(runtime, input(`hook-${i}`, merchant)))),
    );
    const { statements } = recorded;
    assert.equal(statements.filter((s) => s.startsWith('commit')).length, 1);
    assert.equal(statements.filter((s) => /from ["`]webhook_endpoints["`]/.test(s)).length, 1);
    // PostgreSQL: the one-statement insert found the endpoint and inserted nothing; the transaction made the creates.
    if (dialect === 'postgres')
      assert.deepEqual(recorded.named, ['paygate_insert_creates_alone', 'paygate_insert_creates']);
    const deliveries = (await get()
      .db.knex('webhook_deliveries')
      .whereIn(
        'payment_id',
        rows.map((r) => r.id),
      )
      .select('payment_id', 'event_type')) as { payment_id: string; event_type: string }[];
    assert.deepEqual(deliveries.map((d) => d.payment_id).sort(), rows.map((r) => r.id).sort());
    assert.ok(deliveries.every((d) => d.event_type === 'payment.created'));
    // The merchant's mode is now known to have an endpoint: its next creates go straight to a transaction.
    const { result: more, ...again } = await recording(get().db.knex, () =>
      Promise.all([createPayment(runtime, input('hook-again', merchant))]),
    );
    if (dialect === 'postgres') assert.deepEqual(again.named, ['paygate_insert_creates']);
    assert.equal(
      ((await get().db.knex('webhook_deliveries').where({ payment_id: more[0]!.id })) as unknown[]).length,
      1,
    );
  });

  it('stores text exactly, quotes, backslashes, braces and commas included, and nulls as null', async () => {
    const awkward = ['{"a,b"}', 'back\\slash\\"quote', 'NULL', '', ' café ☃ 𝄞 '].map((t) => `ref ${t}`);
    const rows = await Promise.all(
      awkward.map((referenceId, i) =>
        createPayment(runtime, {
          ...input(referenceId),
          successUrl: i % 2 ? `https://shop.example/ok?q=${encodeURIComponent(referenceId)}` : null,
          errorUrl: i % 2 ? 'https://shop.example/error' : null,
        }),
      ),
    );
    for (const [i, row] of rows.entries()) {
      const stored = await findPayment(get().db.knex, row.id);
      assert.equal(stored?.reference_id, awkward[i]);
      assert.equal(stored?.success_url, row.success_url);
      assert.equal(stored?.error_url, i % 2 ? 'https://shop.example/error' : null);
      const [event] = await listEventsForPayment(get().db.knex, row.id);
      assert.equal(JSON.parse(event!.payload).data.reference_id, awkward[i]);
    }
  });

  // On PostgreSQL the merchant without an endpoint loses the one statement's outcome, the one with an endpoint its
  // transaction's COMMIT.
  for (const withEndpoint of [false, true])
    it(`a commit whose outcome is unknown: every create gets the error, and none is made a second time${withEndpoint ? ' (a merchant with a webhook endpoint)' : ''}`, async () => {
      const knex = get().db.knex;
      let merchant = merchantId;
      if (withEndpoint) {
        merchant = await seedMerchant(knex, 'mer_groupcommitlost01');
        await createEndpoint(runtime, merchant, 'test', { url: 'http://127.0.0.1:9/hooks' });
      }
      const lost = new Error('connection lost during commit');
      // With an endpoint the one statement declines (its outcome is heard); the transaction's COMMIT is lost.
      const losing = losingTheOutcome(knex, lost, { statementsAlone: !withEndpoint });
      const deps = withOwnCreates({ ...runtime, db: { ...runtime.db, knex: losing } });
      const refs = ['lost-1', 'lost-2', 'lost-3'].map((ref) => `${ref}${withEndpoint ? '-hooked' : ''}`);
      const results = await Promise.allSettled(refs.map((ref) => createPayment(deps, input(ref, merchant))));
      assert.deepEqual(
        results.map((r) => (r.status === 'rejected' ? r.reason : 'created')),
        [lost, lost, lost],
      );
      const stored = (await knex('payments').whereIn('reference_id', refs)) as unknown[];
      assert.equal(stored.length, 3);
    });

  it('a hook that does not say what it does with a created payment keeps creates in a transaction', async () => {
    const seen: string[] = [];
    const deps = withOwnCreates({
      ...runtime,
      eventHooks: [
        ...runtime.eventHooks,
        async (_trx: Knex.Transaction, event: { type: string }) => void seen.push(event.type),
      ],
    });
    const { result: rows, ...recorded } = await recording(get().db.knex, () =>
      Promise.all([createPayment(deps, input('own-hook-1')), createPayment(deps, input('own-hook-2'))]),
    );
    assert.deepEqual(seen, ['payment.created', 'payment.created']);
    assert.equal(recorded.statements.filter((s) => s.startsWith('commit')).length, 1);
    if (dialect === 'postgres') assert.deepEqual(recorded.named, ['paygate_insert_creates']);
    for (const row of rows) assert.ok(await findPayment(get().db.knex, row.id));
  });

  const body = (referenceId: string): CreatePaymentRequest => ({
    amount: { unit: 'iso4217/USD', value: '1250' },
    referenceId,
  });

  it('keyed creates made together: one commit; a key sent twice makes one payment, the second answer a replay', async () => {
    const scope = { merchantId, live: false };
    // The first keyed create of a minute purges expired keys first, which would keep it out of the batch below.
    await createMerchantPayment(runtime, scope, body('keyed-first'), 'gc-key-first');
    const { result: answers, ...recorded } = await recording(get().db.knex, () =>
      Promise.all([
        ...Array.from({ length: 8 }, (_, i) =>
          createMerchantPayment(runtime, scope, body(`keyed-${i}`), `gc-key-${i}`),
        ),
        createMerchantPayment(runtime, scope, body('keyed-0'), 'gc-key-0'),
      ]),
    );
    assertOneCommit(recorded);
    assert.equal(new Set(answers.map((a) => a.body.paymentId)).size, 8);
    assert.deepEqual(
      answers.slice(1, 8).map((a) => a.replayed),
      Array.from({ length: 7 }, () => false),
    );
    // Of the two with one key, one created and the other replays its answer.
    assert.deepEqual(answers[0]!.body, answers[8]!.body);
    assert.deepEqual([answers[0]!.replayed, answers[8]!.replayed].sort(), [false, true]);
    const stored = (await get().db.knex('payments').where({ reference_id: 'keyed-0' })) as unknown[];
    assert.equal(stored.length, 1);
  });

  it('keyed creates whose commit is lost: each gets the error; retried with its key, each replays its one payment', async () => {
    const knex = get().db.knex;
    const lost = new Error('connection lost during commit');
    const deps = withOwnCreates({ ...runtime, db: { ...runtime.db, knex: losingTheOutcome(knex, lost) } });
    const scope = { merchantId, live: false };
    const refs = ['lost-key-1', 'lost-key-2', 'lost-key-3'];
    const results = await Promise.allSettled(refs.map((ref) => createMerchantPayment(deps, scope, body(ref), ref)));
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? r.reason : 'created')),
      [lost, lost, lost],
    );
    const retried = await Promise.all(refs.map((ref) => createMerchantPayment(runtime, scope, body(ref), ref)));
    assert.ok(retried.every((a) => a.replayed));
    const stored = (await knex('payments').whereIn('reference_id', refs).orderBy('reference_id')) as { id: string }[];
    assert.deepEqual(
      stored.map((p) => p.id),
      retried.map((a) => a.body.paymentId),
    );
  });
});
