import assert from 'node:assert/strict';
import { expectJson, startDashboard, type Dashboard } from './harness.js';

describe('dashboard.getSettings', () => {
  let d: Dashboard;
  before(async () => {
    d = await startDashboard();
  });
  after(() => d.close());

  it('getSettings answers the merchant’s settings, the same in both modes', async () => {
    const m = await d.merchant();
    const expected = {
      name: 'Test merchant',
      iconUrl: null,
      settlementAddresses: {},
      collectData: false,
      requireTwoFactor: false,
      settlementMode: 'direct',
    };
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/settings'), 200), expected);
    assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/settings', { live: true }), 200), expected);
  });
});
