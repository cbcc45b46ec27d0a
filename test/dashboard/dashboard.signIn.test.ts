import assert from 'node:assert/strict';
import { expectError, expectJson, startHarness, type Harness } from '../merchant/harness.js';
import { cookieOf, createPerson, postLogin, rawRequest, type Person } from './people.js';

interface SignedInBody {
  status: 'signed_in';
  session: {
    user: { id: string; email: string; twoFactorEnabled: boolean };
    memberships: {
      merchantId: string;
      merchantName: string;
      logoUrl: string | null;
      role: string;
      requireTwoFactor: boolean;
    }[];
    csrfToken: string;
    expiresAt: number;
    idleExpiresAt: number;
  };
}

describe('dashboard.signIn', () => {
  let h: Harness;
  let owner: Person;
  before(async () => {
    h = await startHarness();
    owner = await createPerson(h.runtime, { merchantId: h.account.merchantId, role: 'owner' });
  });
  after(() => h.close());

  it('signIn: signs in with email and password, sets an HttpOnly SameSite=Strict cookie, returns the session', async () => {
    const res = await postLogin(h, { email: owner.email.toUpperCase(), password: owner.password });
    const body = await expectJson<SignedInBody>(res, 200);
    assert.equal(body.status, 'signed_in');
    assert.equal(body.session.user.id, owner.userId);
    assert.equal(body.session.user.email, owner.email);
    assert.equal(body.session.user.twoFactorEnabled, false);
    assert.deepEqual(body.session.memberships, [
      {
        merchantId: h.account.merchantId,
        merchantName: 'Test merchant',
        logoUrl: null,
        role: 'owner',
        requireTwoFactor: false,
      },
    ]);
    const now = Math.floor(h.clock.now() / 1000);
    assert.equal(body.session.expiresAt, now + 12 * 3600);
    assert.equal(body.session.idleExpiresAt, now + 30 * 60);
    assert.match(body.session.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    const { setCookie } = cookieOf(res);
    // A loopback development server: the plain name, no Secure (the browser would drop it on http://).
    assert.match(setCookie, /^paygate_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('signIn: outside loopback development the cookie is __Host-paygate_session with Secure', async () => {
    const res = await rawRequest(h, {
      method: 'POST',
      path: '/v1/dashboard/auth/login',
      headers: { Host: 'pay.example.com', 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    assert.equal(res.status, 200, res.body);
    const cookies = res.headers['set-cookie'] as string[];
    assert.equal(cookies.length, 1);
    assert.match(
      cookies[0]!,
      /^__Host-paygate_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict; Secure$/,
    );
  });

  it('signIn: a wrong password and an unknown email answer the same 401 unauthorized, without a cookie', async () => {
    const wrong = await postLogin(h, { email: owner.email, password: 'not the password at all' });
    assert.equal(wrong.headers.getSetCookie().length, 0);
    const a = await expectError(wrong, 401, 'unauthorized');
    const unknown = await postLogin(h, { email: 'nobody@shop.example.com', password: 'not the password at all' });
    assert.equal(unknown.headers.getSetCookie().length, 0);
    const b = await expectError(unknown, 401, 'unauthorized');
    assert.equal(a, b);
  });

  it('signIn: 400 params_validation for a body that breaks the schema', async () => {
    await expectError(await postLogin(h, { email: owner.email }), 400, 'params_validation');
    await expectError(await postLogin(h, { email: owner.email, password: 'x', extra: 1 }), 400, 'params_validation');
  });
});
