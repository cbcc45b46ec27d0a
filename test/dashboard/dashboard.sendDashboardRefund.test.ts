/**
 * The dashboard's on-chain refunds (docs/decisions.md §26.21): the merchant API's refundPayment and cancelRefund
 * behind a session, with the refund policy's owner rule applied to the user's role, and the options the payment page
 * reads before offering them. Both databases, real HTTP, the run's local chain for the asset.
 */
import assert from 'node:assert/strict';
import { sharedChains } from '../helpers/chain.js';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startDashboard, type Dashboard, type Merchant } from './harness.js';
import { callAs, createPerson, sessionFor, type SignedIn } from './people.js';
import { collectedPayment, partlyPaidPayment, type HeldMoney } from './refundData.js';

type Options = {
  how: string;
  received: { value: string } | null;
  refund_state: string;
  sources: {
    source: string;
    left: { value: string };
    minimum: { value: string };
    network_fee: { value: string };
    destination: string;
  }[];
};
type Answer = { refund: { refund_id: string; state: string; amount: { value: string }; claim_url: string | null } };

describeEachDatabase('dashboard.sendDashboardRefund', (get) => {
  let d: Dashboard;
  let m: Merchant;
  let held: HeldMoney;
  const as: Record<'owner' | 'developer' | 'viewer', SignedIn> = {} as never;
  before(async () => {
    const chains = await sharedChains();
    d = await startDashboard({
      db: get().db,
      chains,
      config: { PAYGATE_REFUND_MINIMUM: '1', PAYGATE_REFUND_NETWORK_FEE: '0.1' },
    });
    m = await d.merchant();
    const local = chains.local!.evm;
    held = {
      chain: local.config.caip2,
      tusd: `${local.config.caip2}/erc20:${local.testUsd}`,
      merchantId: m.account.merchantId,
      now: d.harness.clock.now(),
    };
    for (const role of ['owner', 'developer', 'viewer'] as const)
      as[role] = await sessionFor(
        d.harness,
        await createPerson(d.harness.runtime, { merchantId: held.merchantId, role }),
      );
  });
  after(() => d.close());

  const call = (who: SignedIn, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    callAs(d.harness, who, method, path, { merchantId: held.merchantId, mode: 'test', body, headers });
  const options = async (id: string) =>
    expectJson<Options>(await call(as.viewer, 'GET', `/v1/dashboard/payments/${id}/refunds`), 200);

  it('getDashboardRefundOptions says how each payment is refunded, what is left less the fee, and what arrived', async () => {
    const collected = await collectedPayment(d.harness.runtime.db.knex, held);
    const o = await options(collected);
    assert.equal(o.how, 'onchain');
    assert.deepEqual(
      o.sources.map((s) => [s.source, s.left.value, s.minimum.value, s.network_fee.value, s.destination]),
      [['payment', '12300000', '1000000', '100000', 'claim_link']],
    );
    assert.equal(o.refund_state, 'none');

    const partly = await options(await partlyPaidPayment(d.harness.runtime.db.knex, held));
    assert.deepEqual([partly.how, partly.received?.value, partly.refund_state], ['onchain', '5000000', 'to_refund']);
    assert.deepEqual(
      partly.sources.map((s) => [s.source, s.left.value, s.network_fee.value]),
      [['excess', '5000000', '0']],
    );

    const direct = await m.createPayment();
    for (const to of ['processing', 'succeeded'])
      await expectJson(await m.call('POST', `/v1/dashboard/payments/${direct}/simulate`, { body: { to } }), 200);
    assert.deepEqual(await options(direct), { how: 'record', received: null, refund_state: 'none', sources: [] });
    await expectError(
      await call(as.viewer, 'GET', '/v1/dashboard/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA/refunds'),
      404,
      'payment_not_found',
    );
  });

  it('sendDashboardRefund: a claim link only from an owner (403 for a developer, a viewer), shown once; a retry replays', async () => {
    const id = await collectedPayment(d.harness.runtime.db.knex, held);
    const path = `/v1/dashboard/payments/${id}/refunds`;
    await expectError(await call(as.viewer, 'POST', path, { amount: '5000000' }), 403, 'forbidden');
    await expectError(await call(as.developer, 'POST', path, { amount: '5000000' }), 403, 'forbidden');
    await expectError(await call(as.owner, 'POST', path, { amount: '500000' }), 400, 'params_validation');
    const key = { 'Idempotency-Key': 'refund-1' };
    const first = await expectJson<Answer>(await call(as.owner, 'POST', path, { amount: '5000000' }, key), 200);
    assert.equal(first.refund.state, 'awaiting_claim');
    assert.match(first.refund.claim_url ?? '', /\/refund#[A-Za-z0-9_-]{43}$/);
    const again = await call(as.owner, 'POST', path, { amount: '5000000' }, key);
    assert.equal(again.headers.get('Idempotent-Replayed'), 'true');
    assert.equal((await expectJson<Answer>(again, 200)).refund.refund_id, first.refund.refund_id);
    const after = await options(id);
    assert.equal(after.sources[0]!.left.value, '7200000', '12.4 less 5 and its fee, less the next fee');
  });

  it('cancelDashboardRefund cancels an unclaimed link once (then 409 invalid_state); an unknown id is 404', async () => {
    const id = await partlyPaidPayment(d.harness.runtime.db.knex, held);
    const made = await expectJson<Answer>(
      await call(as.owner, 'POST', `/v1/dashboard/payments/${id}/refunds`, { source: 'excess' }),
      200,
    );
    assert.equal((await options(id)).refund_state, 'refunding');
    const cancel = (who: SignedIn, refundId: string) => call(who, 'POST', `/v1/dashboard/refunds/${refundId}/cancel`);
    await expectError(await cancel(as.viewer, made.refund.refund_id), 403, 'forbidden');
    const cancelled = await expectJson<{ state: string }>(await cancel(as.developer, made.refund.refund_id), 200);
    assert.equal(cancelled.state, 'cancelled');
    await expectError(await cancel(as.owner, made.refund.refund_id), 409, 'invalid_state');
    await expectError(await cancel(as.owner, 'rfd_AAAAAAAAAAAAAAAAAAAA'), 404, 'invalid_params');
    const o = await options(id);
    assert.deepEqual([o.refund_state, o.sources[0]!.left.value], ['to_refund', '5000000']);
  });
});
