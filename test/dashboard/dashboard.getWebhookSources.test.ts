import assert from 'node:assert/strict';
import { ConfigError, parseSourceAddresses } from '../../server/src/config.js';
import { expectJson, startDashboard } from './harness.js';

describe('dashboard.getWebhookSources', () => {
  it('getWebhookSources answers PAYGATE_WEBHOOK_SOURCE_ADDRESSES as configured', async () => {
    const d = await startDashboard({ config: { PAYGATE_WEBHOOK_SOURCE_ADDRESSES: ' 203.0.113.10, 2001:db8::/64,,' } });
    try {
      const m = await d.merchant();
      assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/webhook-sources'), 200), {
        addresses: ['203.0.113.10', '2001:db8::/64'],
      });
    } finally {
      await d.close();
    }
  });

  it('getWebhookSources answers an empty list when not configured', async () => {
    const d = await startDashboard();
    try {
      const m = await d.merchant();
      assert.deepEqual(await expectJson(await m.call('GET', '/v1/dashboard/webhook-sources', { live: true }), 200), {
        addresses: [],
      });
    } finally {
      await d.close();
    }
  });

  it('getWebhookSources: a malformed PAYGATE_WEBHOOK_SOURCE_ADDRESSES stops the server at startup', () => {
    assert.deepEqual(parseSourceAddresses('10.0.0.0/8'), ['10.0.0.0/8']);
    for (const bad of ['example.com', '10.0.0.0/33', '1.2.3.4/8/9', '::1/129', '10.0.0.1/x']) {
      assert.throws(
        () => parseSourceAddresses(bad),
        (e: unknown) => e instanceof ConfigError,
        bad,
      );
    }
  });
});
