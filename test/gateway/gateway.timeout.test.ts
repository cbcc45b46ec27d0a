import type { Knex } from 'knex';
import { sharedChains } from '../helpers/chain.js';
import { expectError, expectJson, operations, startGatewayHarness, type GatewayHarness } from './harness.js';
import { eventually } from '../helpers/wait.js';

/** 503 internal_error when PAYGATE_REQUEST_TIMEOUT_MS passes, on every operation of this slice. */
describe('gateway.timeout', () => {
  let h: GatewayHarness;
  let paymentId: string;
  before(async () => {
    h = await startGatewayHarness({ config: { PAYGATE_REQUEST_TIMEOUT_MS: '300' }, chains: await sharedChains() });
    paymentId = await h.createPayment();
  });
  after(() => h.close());

  it('every operation answers 503 while storage is stuck (the one SQLite connection is held)', async () => {
    for (const op of operations) {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const holding = new Promise<void>((resolve) => (started = resolve));
      const trx = h.runtime.db.knex.transaction(async (t: Knex.Transaction) => {
        await t.raw('select 1');
        started();
        await held;
      });
      await holding;
      try {
        const res = await h.call(op.method, op.path(paymentId), { body: op.body });
        await expectError(res, 503, 'internal_error');
      } finally {
        release();
        await trx;
      }
    }
    // The stuck handlers finish once storage is back; their late answers are dropped, and the server serves on.
    await expectJson(await h.call('GET', `/v1/gateway/payment/${paymentId}`), 200);
  });

  it('a long poll beyond the request timeout answers 503, and its wait ends with it', async () => {
    const id = await h.createPayment();
    const res = await h.call('GET', `/v1/gateway/payment/${id}/status?maxPollMs=2000`);
    await expectError(res, 503, 'internal_error');
    await eventually('the timed-out poll to stop waiting', () => h.runtime.paymentNotifier.waiting === 0);
  });
});
