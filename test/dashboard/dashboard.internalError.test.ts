import assert from 'node:assert/strict';
import { expectError, operations, seconds, startDashboard, UNKNOWN_DELIVERY, type Dashboard } from './harness.js';

/** Every operation answers an unexpected failure with 500 internal_error and a generic message, nothing more. */
describe('dashboard.internalError', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());

  it('every operation answers 500 internal_error when its storage fails', async () => {
    const m = await d.merchant();
    await m.createEndpoint();
    const knex = d.harness.runtime.db.knex;
    await knex.schema.renameTable('webhook_deliveries', 'webhook_deliveries_unavailable');
    await knex.schema.renameTable('webhook_endpoints', 'webhook_endpoints_unavailable');
    try {
      // A `since` inside the replay window, so every body passes validation and reaches the storage.
      const since = { since: seconds(d.harness.clock.now()) };
      for (const op of operations) {
        const body = op.body && typeof op.body === 'object' && 'since' in op.body ? since : op.body;
        const message = await expectError(
          await m.call(op.method, op.path(UNKNOWN_DELIVERY), { body }),
          500,
          'internal_error',
        );
        assert.equal(message, 'An internal error occurred.', op.name);
      }
    } finally {
      await knex.schema.renameTable('webhook_endpoints_unavailable', 'webhook_endpoints');
      await knex.schema.renameTable('webhook_deliveries_unavailable', 'webhook_deliveries');
    }
    assert.equal((await m.call('GET', '/v1/dashboard/webhook-endpoint')).status, 200);
  });
});
