import assert from 'node:assert/strict';
import { createApp } from '@paygate/server';
import { errorCodeValues } from '../../server/src/generated/gateway.js';
import { testRuntime } from '../helpers/runtime.js';
import type { Runtime } from '@paygate/server';
import { listen, type Listening } from '../helpers/http.js';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';

describe('server.http.errors', () => {
  let server: Listening;
  let runtime: Runtime;
  let account: MerchantAccount;
  before(async () => {
    runtime = await testRuntime();
    server = await listen(createApp({ runtime, validateResponses: true }));
    account = await createMerchantAccount(runtime);
  });
  after(async () => {
    await server.close();
    await runtime.close();
  });

  async function expectError(res: Response, status: number, code: string): Promise<string> {
    assert.equal(res.status, status);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as { code: string; message: string };
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
    assert.equal(body.code, code);
    assert.ok((errorCodeValues as readonly string[]).includes(body.code));
    assert.ok(!/\n\s+at /.test(body.message), 'no stack trace');
    return body.message;
  }

  it('healthz answers while the process is up', async () => {
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('an unknown route is 404 invalid_params', async () => {
    await expectError(await fetch(`${server.url}/v2/nothing`), 404, 'invalid_params');
    await expectError(await fetch(`${server.url}/v1/merchant/nothing`), 404, 'invalid_params');
  });

  it('a method the route lacks is 405 invalid_params', async () => {
    await expectError(await fetch(`${server.url}/v1/merchant/payment`, { method: 'DELETE' }), 405, 'invalid_params');
  });

  it('malformed JSON is 400 invalid_params', async () => {
    const res = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"amount":',
    });
    await expectError(res, 400, 'invalid_params');
  });

  it('a body over the limit is 413 invalid_params', async () => {
    const res = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ referenceId: 'x'.repeat(300 * 1024) }),
    });
    await expectError(res, 413, 'invalid_params');
  });

  it('a content type other than JSON is 415 invalid_params', async () => {
    const res = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'amount=1',
    });
    await expectError(res, 415, 'invalid_params');
  });

  it('a body that breaks the contract is 400 params_validation naming the field', async () => {
    // Authenticated: auth comes before the schema (docs/decisions.md §2).
    const res = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-key': account.testKey, 'merchant-id': account.merchantId },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '-5' }, referenceId: 'order-1' }),
    });
    const message = await expectError(res, 400, 'params_validation');
    assert.match(message, /amount\.value/);
  });
});
