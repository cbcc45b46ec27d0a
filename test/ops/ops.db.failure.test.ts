import assert from 'node:assert/strict';
import pg from 'pg';
import { refusedByServer } from '../../server/src/db/failure.js';

/** How db/failure.ts reads PostgreSQL's errors: whether a failed statement that commits on its own may be retried. */
describe('ops.db failure', () => {
  it('refusedByServer: a statement error proves nothing happened; a lost connection or a session-ending error does not', () => {
    const serverError = (code: string) => Object.assign(new pg.DatabaseError('refused', 0, 'error'), { code });
    assert.equal(refusedByServer(serverError('23503')), true, 'a foreign key violation');
    assert.equal(refusedByServer(serverError('23505')), true, 'a unique violation');
    for (const code of ['57P01', '08006', '58030', 'XX000'])
      assert.equal(refusedByServer(serverError(code)), false, `${code} may come after a commit`);
    assert.equal(refusedByServer(new Error('Connection terminated unexpectedly')), false);
  });
});
