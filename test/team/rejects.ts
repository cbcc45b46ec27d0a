import assert from 'node:assert/strict';
import { ApiError } from '../../server/src/errors.js';

/** Asserts that `work` fails with an ApiError of this code and status (and message, when given). */
export async function rejectsWith(work: Promise<unknown>, code: string, status: number, message?: RegExp) {
  await assert.rejects(work, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.status, status);
    if (message) assert.match(err.message, message);
    return true;
  });
}
