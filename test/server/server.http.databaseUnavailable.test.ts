/**
 * Requests while PostgreSQL cannot be reached (the rehearsal's step 3 stops it for 10 s under traffic): the server
 * reaches the database through a TCP link the test cuts and restores (test/helpers/tcpLink.ts). Every request must be
 * answered at once with 503 `internal_error` and `Retry-After`, which clients and the SDKs retry, not 500 (which says
 * the server's own code failed), and the same process must serve again once the database answers.
 */
import assert from 'node:assert/strict';
import { createApp, openDatabase, type Database, type Runtime } from '@paygate/server';
import { createMerchantAccount, type MerchantAccount } from '../helpers/fixtures.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { listen, type Listening } from '../helpers/http.js';
import { testRuntime } from '../helpers/runtime.js';
import { TcpLink } from '../helpers/tcpLink.js';
import { eventually } from '../helpers/wait.js';

describe('server.http with the database unreachable [postgres]', function () {
  this.timeout(180_000);
  let test: TestDatabase;
  let link: TcpLink;
  let db: Database;
  let runtime: Runtime;
  let server: Listening;
  let account: MerchantAccount;

  before(async () => {
    test = await createTestDatabase('postgres');
    link = await TcpLink.openTo(test.url);
    db = openDatabase(TcpLink.urlThrough(test.url, link), { poolMax: 4 });
    // No credential cache: every request reads the database, as the first request after the cache expires does.
    runtime = await testRuntime({ db, config: { PAYGATE_CREDENTIAL_CACHE_TTL_MS: '0' } });
    server = await listen(createApp({ runtime }));
    account = await createMerchantAccount(runtime);
  });
  after(async () => {
    await server?.close();
    await runtime?.close();
    await link?.cut();
    await db?.close();
    await test?.drop();
  });

  const create = () =>
    fetch(`${server.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Api-Key': account.testKey, 'Merchant-Id': account.merchantId },
      body: JSON.stringify({ amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'order-1' }),
    });

  it('PostgreSQL down: 503 internal_error with Retry-After at once; back: the same process serves again', async () => {
    assert.equal((await create()).status, 201);
    await link.cut();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await create();
      const body = (await res.json()) as { code: string; message: string };
      assert.deepEqual([res.status, body.code], [503, 'internal_error'], JSON.stringify(body));
      assert.match(body.message, /database is unavailable/);
      assert.equal(res.headers.get('retry-after'), '1');
      assert.ok(Date.now() - started < 10_000, 'answered well before the request timeout');
    }
    await link.open();
    await eventually('the process serving again', async () => (await create()).status === 201);
  });
});
