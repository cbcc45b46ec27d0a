import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describeEachDatabase } from '../helpers/db.js';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, codeAt, createPerson, postLogin, signInAs, type Person } from './people.js';

const MINUTE = 60_000;

/**
 * Login throttling lives in the database: two servers over one database (two processes) share the counts. Per
 * account 5 failures in 15 minutes lock it for 15 minutes; per client address 20.
 */
describeEachDatabase('dashboard.signIn.throttled', (get) => {
  let a: Harness;
  let b: Harness;
  let owner: Person;
  before(async () => {
    // Two processes of one deployment share the database and the encryption key (the throttle keys derive from it).
    const config = { PAYGATE_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}` };
    a = await startHarness({ db: get().db, config });
    b = await startHarness({ db: get().db, config });
    owner = await createPerson(a.runtime, { merchantId: a.account.merchantId, role: 'owner' });
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  /** Moves both servers' clocks together. */
  const advance = (ms: number) => {
    a.clock.advance(ms);
    b.clock.set(a.clock.now());
  };
  const wrong = (h: Harness, email: string) => postLogin(h, { email, password: 'definitely not it' });

  it('signIn: 5 failures for an account (on two servers) lock it: 429 rate_limited with Retry-After, even with the right password', async () => {
    for (let i = 0; i < 5; i++) await expectError(await wrong(i % 2 ? a : b, owner.email), 401, 'unauthorized');
    const res = await postLogin(a, { email: owner.email, password: owner.password });
    assert.equal(res.headers.get('retry-after'), '900');
    const message = await expectError(res, 429, 'rate_limited');
    advance(10 * MINUTE);
    const later = await postLogin(b, { email: owner.email, password: owner.password });
    assert.equal(later.headers.get('retry-after'), '300');
    assert.equal(await expectError(later, 429, 'rate_limited'), message);
    advance(5 * MINUTE);
    await signInAs(b, owner);
  });

  it('signIn: an unknown email is locked the same way, with the same message', async () => {
    const email = 'nobody.here@shop.example.com';
    for (let i = 0; i < 5; i++) await expectError(await wrong(a, email), 401, 'unauthorized');
    const unknown = await expectError(await wrong(a, email), 429, 'rate_limited');
    for (let i = 0; i < 5; i++) await expectError(await wrong(b, owner.email), 401, 'unauthorized');
    const known = await expectError(await wrong(b, owner.email), 429, 'rate_limited');
    assert.equal(unknown, known);
    advance(15 * MINUTE);
  });

  it('signIn: a success resets the account count', async () => {
    for (let i = 0; i < 4; i++) await expectError(await wrong(a, owner.email), 401, 'unauthorized');
    await signInAs(a, owner);
    for (let i = 0; i < 4; i++) await expectError(await wrong(b, owner.email), 401, 'unauthorized');
    await signInAs(b, owner);
    advance(15 * MINUTE);
  });

  it('signIn: 20 failures from one client address lock the address for every account', async () => {
    advance(16 * MINUTE);
    for (let i = 0; i < 20; i++) {
      await expectError(await wrong(i % 2 ? a : b, `spray${i}@shop.example.com`), 401, 'unauthorized');
    }
    const res = await postLogin(a, { email: owner.email, password: owner.password });
    assert.equal(res.headers.get('retry-after'), '900');
    await expectError(res, 429, 'rate_limited');
    advance(15 * MINUTE);
    await signInAs(a, owner);
  });

  it('signIn: successes and two_factor_required answers give their attempts back: neither locks the address or the account', async () => {
    advance(16 * MINUTE);
    for (let i = 0; i < 25; i++) await signInAs(i % 2 ? a : b, owner);
    const person = await createPerson(a.runtime, { merchantId: a.account.merchantId, role: 'owner' });
    const me = await signInAs(a, person);
    const { secret } = await expectJson<{ secret: string }>(
      await callAs(a, me, 'POST', '/v1/dashboard/two-factor/enrol'),
      200,
    );
    await expectJson(
      await callAs(a, me, 'POST', '/v1/dashboard/two-factor/activate', { body: { code: codeAt(a, secret) } }),
      200,
    );
    advance(30_000);
    for (let i = 0; i < 4; i++) await expectError(await wrong(a, person.email), 401, 'unauthorized');
    // The fifth attempt reaches the limit while it is checked; a right password without a code gives it back.
    const step = await postLogin(b, { email: person.email, password: person.password });
    assert.deepEqual(await expectJson(step, 200), { status: 'two_factor_required' });
    await signInAs(a, person, { totpCode: codeAt(a, secret) });
    advance(15 * MINUTE);
  });
});
