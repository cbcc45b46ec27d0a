import assert from 'node:assert/strict';
import { createApp } from '@paygate/server';
import { networkLoads } from '../../scripts/build-docs.js';
import { testRuntime } from '../helpers/runtime.js';
import type { Runtime } from '@paygate/server';
import { listen, type Listening } from '../helpers/http.js';

describe('server.docs.serve', () => {
  let server: Listening;
  let runtime: Runtime;
  before(async () => {
    runtime = await testRuntime();
    server = await listen(createApp({ runtime }));
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  it('lists the references at /docs', async () => {
    const res = await fetch(`${server.url}/docs`);
    assert.equal(res.status, 200);
    const html = await res.text();
    for (const api of ['gateway', 'merchant', 'dev', 'dashboard', 'ops'])
      assert.ok(html.includes(`href="/docs/${api}"`), api);
  });

  for (const api of ['gateway', 'merchant', 'dev', 'dashboard', 'ops']) {
    it(`serves the ${api} reference, self-contained`, async () => {
      const res = await fetch(`${server.url}/docs/${api}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      const html = await res.text();
      assert.ok(html.length > 100_000, 'the Redoc bundle is inlined');
      assert.deepEqual(networkLoads(html), []);
      assert.ok(!/<script[^>]+src=/i.test(html), 'no external script tag at all');
    });
  }

  it('detects a page that would load from the network', () => {
    assert.deepEqual(networkLoads('<script src="https://cdn.example.com/redoc.js"></script>'), [
      '<script> https://cdn.example.com/redoc.js',
    ]);
    assert.deepEqual(networkLoads('<link rel="stylesheet" href="//fonts.example.com/a.css">'), [
      '<link> //fonts.example.com/a.css',
    ]);
  });

  it('an unknown reference is 404 invalid_params', async () => {
    const res = await fetch(`${server.url}/docs/nope`);
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { code: string }).code, 'invalid_params');
  });
});
