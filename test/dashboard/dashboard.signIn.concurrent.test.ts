/**
 * Parallel sign-ins against the lockout (docs/decisions.md §21.6): an attempt is reserved in the database before its
 * password is checked, so a burst of N parallel wrong passwords against a limit of 5 gets at most 5 checks and the
 * rest the lockout's answer. The checks are held (test/helpers/passwordChecks.ts) until every request has either
 * started one or been answered, so the whole burst is in flight at once on any machine.
 */
import assert from 'node:assert/strict';
import { describeEachDatabase } from '../helpers/db.js';
import { heldChecks, type HeldChecks } from '../helpers/passwordChecks.js';
import { eventually } from '../helpers/wait.js';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { callAs, codeAt, createPerson, postLogin, signInAs, type Person } from './people.js';

const BURST = 60;
const LIMIT = 5;
const MINUTE = 60_000;
const noCredential = { 'Api-Key': null, 'Merchant-Id': null };

/** Sends `send()` `BURST` times at once, holding every password check until each request is checked or answered. */
async function burst(checks: HeldChecks, send: () => Promise<Response>) {
  checks.hold();
  let answered = 0;
  const pending = Array.from({ length: BURST }, () =>
    send().then(async (res) => {
      answered += 1;
      return { status: res.status, body: (await res.json()) as { code: string; message: string } };
    }),
  );
  await eventually('every attempt checked or answered', () => checks.started + answered >= BURST);
  const checked = checks.started;
  checks.release();
  const results = await Promise.all(pending);
  const count = (status: number) => results.filter((r) => r.status === status).length;
  return { checked, results, count };
}

describeEachDatabase('dashboard.signIn.concurrent', (get) => {
  let h: Harness;
  let checks: HeldChecks;
  let owner: Person;
  let lockedMessage: string;
  before(async () => {
    checks = heldChecks();
    // The per-process bound is far above the burst here, so what refuses is the database reservation alone.
    h = await startHarness({
      db: get().db,
      signInGate: { perAccount: 1000, overall: 1000, verifyPassword: (p, e) => checks.verifyPassword(p, e) },
    });
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
  });
  after(() => h.close());
  // Each test starts with no window open for the account or the address.
  afterEach(() => h.clock.advance(16 * MINUTE));

  it(`signIn: ${BURST} parallel wrong passwords get at most ${LIMIT} checks; the rest and then the right password are 429`, async () => {
    const { checked, count, results } = await burst(checks, () =>
      postLogin(h, { email: owner.email, password: 'definitely not it' }),
    );
    assert.equal(checked, LIMIT, 'passwords checked');
    assert.equal(count(401), checked, 'every checked attempt is a wrong password');
    assert.equal(count(429), BURST - checked);
    lockedMessage = results.find((r) => r.status === 429)!.body.message;
    const right = await postLogin(h, { email: owner.email, password: owner.password });
    assert.equal(right.headers.get('retry-after'), '900');
    assert.equal(await expectError(right, 429, 'rate_limited'), lockedMessage);
  });

  it(`signIn: ${BURST} parallel wrong TOTP codes with the right password get at most ${LIMIT} checks; then the right code is 429`, async () => {
    const person = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
    const me = await signInAs(h, person);
    const { secret } = await expectJson<{ secret: string }>(
      await callAs(h, me, 'POST', '/v1/dashboard/two-factor/enrol'),
      200,
    );
    await expectJson(
      await callAs(h, me, 'POST', '/v1/dashboard/two-factor/activate', { body: { code: codeAt(h, secret) } }),
      200,
    );
    h.clock.advance(30_000);
    const wrongCode = codeAt(h, secret) === '000000' ? '111111' : '000000';

    const { checked, count, results } = await burst(checks, () =>
      postLogin(h, { email: person.email, password: person.password, totpCode: wrongCode }),
    );
    assert.equal(checked, LIMIT, 'attempts checked');
    assert.equal(count(401), checked);
    assert.equal(count(429), BURST - checked);
    assert.ok(results.filter((r) => r.status === 429).every((r) => r.body.message === lockedMessage));
    await expectError(
      await postLogin(h, { email: person.email, password: person.password, totpCode: codeAt(h, secret) }),
      429,
      'rate_limited',
    );
  });

  it(`acceptInvitation: ${BURST} parallel wrong passwords of an existing account get at most ${LIMIT} checks; the invitation is revoked`, async () => {
    const me = await signInAs(h, owner);
    const { inviteUrl } = await expectJson<{ inviteUrl: string }>(
      await callAs(h, me, 'POST', '/v1/dashboard/team/invitations', {
        merchantId: h.account.merchantId,
        body: { role: 'developer' },
      }),
      201,
    );
    const token = inviteUrl.split('#')[1]!;
    const joiner = await createPerson(h.runtime);
    const accept = (password: string) =>
      h.call('POST', '/v1/dashboard/invitations/accept', {
        body: { token, email: joiner.email, password },
        headers: noCredential,
      });

    const { checked, count } = await burst(checks, () => accept('definitely not it'));
    assert.equal(checked, LIMIT, 'passwords checked');
    assert.equal(count(401), checked);
    assert.equal(count(404), BURST - checked, 'the rest find the link refused');
    // The last failed check revoked the link: the right password is refused too.
    await expectError(await accept(joiner.password), 404, 'invalid_params');
  });
});

describe('dashboard.signIn.concurrent (this process)', () => {
  let h: Harness;
  let checks: HeldChecks;
  before(async () => {
    checks = heldChecks();
    h = await startHarness({
      signInGate: { perAccount: 1, overall: 2, verifyPassword: (p, e) => checks.verifyPassword(p, e) },
    });
  });
  after(() => h.close());

  it('signIn: beyond 1 check per account and 2 in all, a sign-in is refused at once with 429 and Retry-After 1, uncounted', async () => {
    const [a, b, c] = [await createPerson(h.runtime), await createPerson(h.runtime), await createPerson(h.runtime)];
    checks.hold();
    const first = postLogin(h, { email: a.email, password: 'wrong password a' });
    await eventually('the first check started', () => checks.started === 1);
    const sameAccount = await postLogin(h, { email: a.email, password: a.password });
    assert.equal(sameAccount.headers.get('retry-after'), '1');
    const busy = await expectError(sameAccount, 429, 'rate_limited');
    const second = postLogin(h, { email: b.email, password: 'wrong password b' });
    await eventually('the second check started', () => checks.started === 2);
    const third = await postLogin(h, { email: c.email, password: c.password });
    assert.equal(third.headers.get('retry-after'), '1');
    assert.equal(await expectError(third, 429, 'rate_limited'), busy);
    assert.equal(checks.started, 2);
    checks.release();
    await expectError(await first, 401, 'unauthorized');
    await expectError(await second, 401, 'unauthorized');
    // The refused attempt was not counted: three more failures (four in all) do not lock the account.
    for (let i = 0; i < LIMIT - 2; i++) {
      await expectError(await postLogin(h, { email: a.email, password: 'still wrong' }), 401, 'unauthorized');
    }
    await signInAs(h, a);
    await signInAs(h, c);
  });
});
