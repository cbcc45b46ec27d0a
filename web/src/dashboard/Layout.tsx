import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Mode } from './api';
import type { DashboardSession } from './schemas';
import { BASE, type Route } from './routes';
import { MerchantLogo } from '../kit/MerchantLogo';

interface NavItem {
  href: string;
  label: string;
  active(route: Route): boolean;
  /** Hidden from roles that cannot use it (the server refuses them anyway). */
  roles?: readonly string[];
}

const NAV: NavItem[] = [
  { href: BASE, label: 'Overview', active: (r) => r.name === 'overview' },
  { href: `${BASE}/payments`, label: 'Payments', active: (r) => r.name === 'payments' || r.name === 'payment' },
  { href: `${BASE}/links`, label: 'Payment links', active: (r) => r.name === 'links' },
  { href: `${BASE}/invoices`, label: 'Invoices', active: (r) => r.name === 'invoices' },
  {
    href: `${BASE}/balances`,
    label: 'Balances & payouts',
    active: (r) => r.name === 'balances' || r.name === 'payout',
  },
  { href: `${BASE}/webhooks`, label: 'Webhooks', active: (r) => r.name === 'webhooks' },
  { href: `${BASE}/api-keys`, label: 'API keys', active: (r) => r.name === 'apiKeys', roles: ['owner', 'developer'] },
  { href: `${BASE}/pos`, label: 'Point of sale', active: (r) => r.name === 'pos', roles: ['owner', 'developer'] },
  { href: `${BASE}/settings`, label: 'Settings', active: (r) => r.name === 'settings' },
  { href: `${BASE}/settings/team`, label: 'Team', active: (r) => r.name === 'team', roles: ['owner'] },
  {
    href: `${BASE}/settings/audit-log`,
    label: 'Audit log',
    active: (r) => r.name === 'auditLog',
    roles: ['owner'],
  },
  { href: `${BASE}/settings/security`, label: 'Security', active: (r) => r.name === 'security' },
];

const TITLES: Record<Route['name'], string> = {
  login: 'Sign in',
  invite: 'Invitation',
  overview: 'Overview',
  payments: 'Payments',
  payment: 'Payment',
  links: 'Payment links',
  invoices: 'Invoices',
  balances: 'Balances & payouts',
  payout: 'Payout',
  webhooks: 'Webhooks',
  apiKeys: 'API keys',
  pos: 'Point of sale',
  settings: 'Settings',
  team: 'Team',
  auditLog: 'Audit log',
  security: 'Security',
  notFound: 'Not found',
};

export function Layout(props: {
  route: Route;
  /** Changes on every navigation: focus moves to the new screen's heading. */
  navigation: number;
  session: DashboardSession;
  merchantId: string | null;
  mode: Mode;
  onMode(mode: Mode): void;
  onMerchant(merchantId: string): void;
  onSignOut(): void;
  navigate(path: string): void;
  children: ComponentChildren;
}) {
  const { session, mode } = props;
  const [menuOpen, setMenuOpen] = useState(false);
  const first = useRef(true);
  const membership = session.memberships.find((m) => m.merchantId === props.merchantId);
  const role = membership?.role ?? null;

  useEffect(() => {
    document.title = `${TITLES[props.route.name]} · Paygate dashboard`;
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    // After a navigation, focus the new screen's heading, so a screen reader announces where the user is.
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
      heading.focus();
    }
  }, [props.navigation]);

  const needsTwoFactor = membership?.requireTwoFactor === true && !session.user.twoFactorEnabled;

  return (
    <div class={mode === 'test' ? 'shell test-mode' : 'shell'}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      {mode === 'test' && (
        <div class="test-strip" role="note">
          Test mode: you are viewing test data. Nothing here moves real money.
        </div>
      )}
      <header class="topbar">
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="dashboard-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <a class="brand" href={BASE}>
          Paygate
        </a>
        <div class="merchant">
          {membership && <MerchantLogo url={membership.logoUrl} name={membership.merchantName} />}
          {session.memberships.length > 1 ? (
            <>
              <label for="merchant-switch" class="visually-hidden">
                Merchant
              </label>
              <select
                id="merchant-switch"
                value={props.merchantId ?? ''}
                onChange={(e) => props.onMerchant(e.currentTarget.value)}
              >
                {session.memberships.map((m) => (
                  <option key={m.merchantId} value={m.merchantId}>
                    {m.merchantName}
                  </option>
                ))}
              </select>
            </>
          ) : (
            <span class="merchant-name">{membership?.merchantName ?? 'No merchant'}</span>
          )}
          {role && <span class="role">{role}</span>}
        </div>
        <button
          type="button"
          role="switch"
          class={mode === 'test' ? 'mode-switch on' : 'mode-switch'}
          aria-checked={mode === 'test'}
          onClick={() => props.onMode(mode === 'test' ? 'live' : 'test')}
        >
          <span class="mode-track" aria-hidden="true" />
          Test mode
        </button>
        <details class="user-menu">
          <summary>
            <span class="visually-hidden">Account menu for </span>
            <span class="user-email">{session.user.email}</span>
          </summary>
          <div class="user-menu-panel">
            <a href={`${BASE}/settings/security`}>Security</a>
            <button type="button" class="link-button" onClick={() => props.onSignOut()}>
              Sign out
            </button>
          </div>
        </details>
      </header>
      <div class="frame">
        <nav id="dashboard-nav" aria-label="Dashboard" class={menuOpen ? 'nav open' : 'nav'}>
          <ul>
            {NAV.filter((item) => !item.roles || (role !== null && item.roles.includes(role))).map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={item.active(props.route) ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {needsTwoFactor && props.route.name !== 'security' && (
            <p class="banner warn" role="alert">
              Your team requires two-factor authentication. <a href={`${BASE}/settings/security`}>Enrol in Security</a>{' '}
              to see this merchant.
            </p>
          )}
          {props.children}
        </main>
      </div>
    </div>
  );
}
