import assert from 'node:assert/strict';
import { createApp } from '@paygate/server';
import { errorCodeValues } from '../../server/src/generated/gateway.js';
import { paramOfValidation } from '../../server/src/http/errorHandler.js';
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
    // `param` (the field at fault) is optional; nothing else may appear.
    assert.deepEqual(
      Object.keys(body)
        .filter((k) => k !== 'param')
        .sort(),
      ['code', 'message'],
    );
    const param = (body as { param?: unknown }).param;
    assert.ok(param === undefined || (typeof param === 'string' && param !== ''), 'param is a non-empty string');
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

  it('a field the contract refuses is named in param, as a dotted path; an unreadable body names none', async () => {
    const headers = {
      'content-type': 'application/json',
      'api-key': account.testKey,
      'merchant-id': account.merchantId,
    };
    const bodyField = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '-5' }, referenceId: 'order-1' }),
    });
    assert.equal(((await bodyField.json()) as { param?: string }).param, 'amount.value');
    const missing = await fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '5' } }),
    });
    assert.equal(((await missing.json()) as { param?: string }).param, 'referenceId');
    const query = await fetch(`${server.url}/v1/merchant/payments?limit=500`, { headers });
    assert.deepEqual([query.status, ((await query.json()) as { param?: string }).param], [400, 'limit']);
    const malformed = await fetch(`${server.url}/v1/merchant/payment`, { method: 'POST', headers, body: '{"a":' });
    assert.equal(malformed.status, 400);
    assert.equal('param' in ((await malformed.json()) as object), false);
  });

  it('param unescapes the JSON pointer of a key holding a slash or a tilde', () => {
    const err = { status: 400, errors: [{ path: '/body/settlementAddresses/a~1b~0c', message: 'x' }] };
    assert.equal(paramOfValidation(err), 'settlementAddresses.a/b~c');
    assert.equal(paramOfValidation({ status: 400, errors: [{ path: '/body', message: 'must be object' }] }), undefined);
  });
});
