/**
 * Webhook retention (docs/decisions.md §24.3): attempts older than PAYGATE_WEBHOOK_RETENTION_DAYS go, in batches of
 * at most 1000 rows per statement, on the injected clock; recent ones stay; the delivery keeps its final status and
 * attempt count, and the API says its attempts were pruned.
 */
import assert from 'node:assert/strict';

import { pruneWebhookAttempts, RETENTION_TASK } from '../../server/src/webhooks/retention.js';
import { expectJson, startDashboard, type Dashboard, type Delivery, type Merchant } from '../dashboard/harness.js';
import { describeEachDatabase } from '../helpers/db.js';

const DAY = 86_400_000;

interface Page {
  entries: { kind: string; deliveries?: (Delivery & { attemptsPruned?: boolean })[] }[];
}

describeEachDatabase('webhooks.retention', (get) => {
  let d: Dashboard;
  let m: Merchant;
  before(async () => {
    d = await startDashboard({ db: get().db, config: { PAYGATE_WEBHOOK_RETENTION_DAYS: '30' } });
    m = await d.merchant();
    await m.createEndpoint();
  });
  after(() => d.close());

  const knex = () => get().db.knex;
  const deliveriesOf = async (paymentId: string) =>
    (await expectJson<Page>(await m.call('GET', `/v1/dashboard/payments/${paymentId}/timeline`), 200)).entries.flatMap(
      (e) => e.deliveries ?? [],
    );
  const attemptsOf = async (deliveryId: string) =>
    Number(
      ((await knex()('webhook_attempts').where({ delivery_id: deliveryId }).count({ n: '*' })) as { n: number }[])[0]!
        .n,
    );

  it('the retention job removes attempts past the window in batches of 1000, keeps recent ones and each delivery’s outcome', async () => {
    const old = await m.createPayment();
    await d.drain();
    const [oldDelivery] = await deliveriesOf(old);
    assert.equal(oldDelivery!.status, 'delivered');
    assert.equal(oldDelivery!.attemptsPruned, false);
    // 2,400 more old attempt rows on the same delivery's history, written like the worker writes them: three batches.
    const startedAt = d.harness.clock.now();
    for (let i = 0; i < 2400; i += 400) {
      await knex().batchInsert(
        'webhook_attempts',
        Array.from({ length: 400 }, (_, j) => ({
          delivery_id: oldDelivery!.id,
          attempt: 100 + i + j,
          started_at: startedAt - 1 - i - j,
          status: 500,
          latency_ms: 3,
          error: null,
          response_body: 'busy',
          delivered: false,
        })),
        200,
      );
    }

    d.harness.clock.advance(31 * DAY);
    const recent = await m.createPayment();
    await d.drain();
    const [recentDelivery] = await deliveriesOf(recent);
    assert.equal(await attemptsOf(recentDelivery!.id), 1);

    const deletes: string[] = [];
    const listener = (q: { sql: string; bindings?: unknown[] }) => {
      if (/^delete from ["`]webhook_attempts["`]/i.test(q.sql)) deletes.push(String(q.bindings?.length));
    };
    knex().on('query', listener);
    try {
      await d.harness.runtime.jobs.add(knex(), RETENTION_TASK, {}, { jobKey: RETENTION_TASK });
      await d.drain();
    } finally {
      knex().off('query', listener);
    }
    assert.deepEqual(deletes, ['1000', '1000', '401'], 'three statements, none over 1000 rows');

    assert.equal(await attemptsOf(oldDelivery!.id), 0);
    assert.equal(await attemptsOf(recentDelivery!.id), 1, 'an attempt inside the window stays');
    const [prunedJson] = await deliveriesOf(old);
    assert.deepEqual(
      [prunedJson!.status, prunedJson!.attemptCount, prunedJson!.deliveredAt, prunedJson!.attemptsPruned],
      ['delivered', 1, oldDelivery!.deliveredAt, true],
    );
    assert.deepEqual(prunedJson!.attempts, []);
    const detail = await expectJson<Delivery & { attemptsPruned: boolean }>(
      await m.call('GET', `/v1/dashboard/webhook-deliveries/${oldDelivery!.id}`),
      200,
    );
    assert.deepEqual([detail.status, detail.attempts, detail.attemptsPruned], ['delivered', [], true]);
    const [recentJson] = await deliveriesOf(recent);
    assert.equal(recentJson!.attemptsPruned, false);
  });

  it('a retention run with nothing past the window removes nothing', async () => {
    const result = await pruneWebhookAttempts({
      db: get().db,
      jobs: d.harness.runtime.jobs,
      now: () => d.harness.clock.now(),
      logger: d.harness.runtime.logger,
      config: { webhookRetentionMs: 30 * DAY },
    });
    assert.deepEqual(result, { removed: 0, batches: 0, done: true });
  });
});
