/**
 * The dashboard web app's routes (web/src/dashboard/routes.ts): every path the server serves the page for maps to
 * one screen, and the sign-in page's `next` is followed only to a dashboard path (no open redirect).
 */
import assert from 'node:assert/strict';
import { isPublic, needsMerchant, parseRoute, safeNext } from '../../web/src/dashboard/routes.js';

describe('dashboard.appRoutes parse', () => {
  it('parseRoute: each dashboard path is its screen, with or without a trailing slash; anything else is notFound', () => {
    const cases: [string, unknown][] = [
      ['/dashboard', { name: 'overview' }],
      ['/dashboard/', { name: 'overview' }],
      ['/dashboard/login', { name: 'login' }],
      ['/dashboard/invite', { name: 'invite' }],
      ['/dashboard/payments', { name: 'payments' }],
      ['/dashboard/payments/pay_0123abcd', { name: 'payment', paymentId: 'pay_0123abcd' }],
      ['/dashboard/balances', { name: 'balances' }],
      ['/dashboard/balances/payouts/po_0123abcd', { name: 'payout', payoutId: 'po_0123abcd' }],
      ['/dashboard/webhooks', { name: 'webhooks' }],
      ['/dashboard/api-keys/', { name: 'apiKeys' }],
      ['/dashboard/settings', { name: 'settings' }],
      ['/dashboard/settings/team', { name: 'team' }],
      ['/dashboard/settings/audit-log', { name: 'auditLog' }],
      ['/dashboard/settings/security', { name: 'security' }],
      ['/dashboard/payments/a/b', { name: 'notFound' }],
      ['/dashboard/payments/%3Cscript%3E', { name: 'notFound' }],
      ['/dashboard/x', { name: 'notFound' }],
      ['/dashboardx', { name: 'notFound' }],
    ];
    for (const [path, route] of cases) assert.deepEqual(parseRoute(path), route, path);
  });

  it('only sign-in and the invitation are public; Security and not-found need no merchant', () => {
    assert.deepEqual(
      (['login', 'invite', 'overview', 'security', 'team'] as const).map((name) => isPublic({ name } as never)),
      [true, true, false, false, false],
    );
    assert.equal(needsMerchant({ name: 'security' }), false);
    assert.equal(needsMerchant({ name: 'notFound' }), false);
    assert.equal(needsMerchant({ name: 'apiKeys' }), true);
  });

  it('safeNext: a dashboard path (with its query) is followed; another site, a scheme, the login page or nothing gives the overview', () => {
    assert.equal(safeNext('/dashboard/payments?status=succeeded'), '/dashboard/payments?status=succeeded');
    assert.equal(safeNext('/dashboard/settings/team'), '/dashboard/settings/team');
    for (const next of [
      null,
      '',
      'https://evil.example/dashboard',
      '//evil.example/dashboard',
      '/dashboard/../../evil',
      '/dashboardevil',
      'javascript:alert(1)',
      '/dashboard/login?next=/dashboard',
      '/\\evil.example',
    ]) {
      assert.equal(safeNext(next), '/dashboard', String(next));
    }
  });
});
