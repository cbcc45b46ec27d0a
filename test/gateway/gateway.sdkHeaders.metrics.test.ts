import assert from 'node:assert/strict';
import { expectJson, startGatewayHarness, type GatewayHarness } from './harness.js';

/** `Sdk-*` headers reach the metrics with bounded labels only, and never change an answer (docs/decisions.md §15). */
describe('gateway Sdk-* headers in the metrics', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness();
  });
  after(() => h.close());

  const count = (text: string, name: string, platform: string) => {
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(`paygate_gateway_requests_by_sdk_total{sdk_name="${name}",sdk_platform="${platform}"}`),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('counts known SDKs by name and platform, anything else as other, absent headers as none', async () => {
    const id = await h.createPayment();
    const read = (headers: Record<string, string>) => h.call('GET', `/v1/gateway/payment/${id}`, { headers });
    const plain = await expectJson(await read({}), 200);
    const ours = await expectJson(await read({ 'Sdk-Name': '@paygate/sdk-wallet', 'Sdk-Platform': 'Web' }), 200);
    const theirs = await expectJson(await read({ 'Sdk-Name': `toaster-${Date.now()}`, 'Sdk-Platform': 'fridge' }), 200);
    assert.deepEqual(ours, plain);
    assert.deepEqual(theirs, plain);
    const text = await h.runtime.metrics.registry.metrics();
    assert.equal(count(text, 'none', 'none'), 1);
    assert.equal(count(text, '@paygate/sdk-wallet', 'web'), 1);
    assert.equal(count(text, 'other', 'other'), 1);
    assert.doesNotMatch(text, /toaster|fridge/);
  });
});
