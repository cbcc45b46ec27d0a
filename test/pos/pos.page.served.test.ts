/** The point-of-sale screen's page: served for a well-formed terminal id, with the dashboard's strict policy. */
import assert from 'node:assert/strict';
import { startGatewayHarness, type GatewayHarness } from '../gateway/harness.js';

describe('pos.page served', () => {
  let h: GatewayHarness;
  before(async () => {
    h = await startGatewayHarness();
  });
  after(() => h?.close());

  it('answers /pos/{posId} with the page, no inline script, no framing and no caching', async () => {
    const res = await fetch(`${h.server.url}/pos/pos_AAAAAAAAAAAAAAAA`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /<script type="module" crossorigin src="\/pos\/assets\/pos-[^"]+\.js"><\/script>/);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const asset = /src="(\/pos\/assets\/[^"]+)"/.exec(html)![1]!;
    assert.equal((await fetch(`${h.server.url}${asset}`)).status, 200);
  });

  it('a path that is no terminal id, and a missing asset, are 404', async () => {
    for (const path of ['/pos/xyz', '/pos/pos_AAAA', '/pos/assets/missing.js']) {
      assert.equal((await fetch(`${h.server.url}${path}`)).status, 404, path);
    }
  });
});
