import assert from 'node:assert/strict';
import { errorCodeValues } from '../../server/src/generated/gateway.js';

/** Asserts an ErrorResponse with this status and code, and answers its message. */
export async function expectError(res: Response, status: number, code: string): Promise<string> {
  const body = (await res.json()) as { code: string; message: string };
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`);
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
  return body.message;
}

export async function expectJson<T>(res: Response, status: number): Promise<T> {
  const body = (await res.json()) as T;
  assert.equal(res.status, status, `expected ${status}, got ${res.status} ${JSON.stringify(body)}`);
  return body;
}
