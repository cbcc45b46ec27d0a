/**
 * The app's routes (History API, all under /dashboard; the server answers every one with the same page). Public
 * routes need no session; the rest send a signed-out user to the sign-in page, with the route to return to.
 */
export type Route =
  | { name: 'login' }
  | { name: 'invite' }
  | { name: 'overview' }
  | { name: 'payments' }
  | { name: 'links' }
  | { name: 'invoices' }
  | { name: 'payment'; paymentId: string }
  | { name: 'balances' }
  | { name: 'payout'; payoutId: string }
  | { name: 'webhooks' }
  | { name: 'apiKeys' }
  | { name: 'pos' }
  | { name: 'settings' }
  | { name: 'team' }
  | { name: 'auditLog' }
  | { name: 'security' }
  | { name: 'notFound' };

export const BASE = '/dashboard';

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === BASE) return { name: 'overview' };
  if (!path.startsWith(`${BASE}/`)) return { name: 'notFound' };
  const rest = path.slice(BASE.length + 1);
  switch (rest) {
    case 'login':
      return { name: 'login' };
    case 'invite':
      return { name: 'invite' };
    case 'payments':
      return { name: 'payments' };
    case 'links':
      return { name: 'links' };
    case 'invoices':
      return { name: 'invoices' };
    case 'webhooks':
      return { name: 'webhooks' };
    case 'balances':
      return { name: 'balances' };
    case 'api-keys':
      return { name: 'apiKeys' };
    case 'pos':
      return { name: 'pos' };
    case 'settings':
      return { name: 'settings' };
    case 'settings/team':
      return { name: 'team' };
    case 'settings/audit-log':
      return { name: 'auditLog' };
    case 'settings/security':
      return { name: 'security' };
  }
  const payment = /^payments\/([A-Za-z0-9_-]{1,64})$/.exec(rest);
  if (payment) return { name: 'payment', paymentId: payment[1]! };
  const payout = /^balances\/payouts\/([A-Za-z0-9_-]{1,64})$/.exec(rest);
  if (payout) return { name: 'payout', payoutId: payout[1]! };
  return { name: 'notFound' };
}

export function isPublic(route: Route): boolean {
  return route.name === 'login' || route.name === 'invite';
}

/** Screens that act for a merchant (the rest need only a signed-in user). */
export function needsMerchant(route: Route): boolean {
  return !isPublic(route) && route.name !== 'security' && route.name !== 'notFound';
}

/** A `next` value is followed only when it is a dashboard path: never an open redirect. */
export function safeNext(next: string | null): string {
  if (next && /^\/dashboard(\/[A-Za-z0-9_\-/]*)?(\?[^#]*)?$/.test(next) && !next.startsWith('/dashboard/login')) {
    return next;
  }
  return BASE;
}
