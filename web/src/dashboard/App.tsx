import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createDashboardClient, type Mode } from './api';
import { asFailure } from '../kit/failure.js';
import { request } from '../kit/request.js';
import { displayChains, type DashboardPageConfig } from './config';
import { DashboardContext, ShellContext, type DashboardContextValue, type ShellContextValue } from './context';
import { Layout } from './Layout';
import type { DashboardSession } from './schemas';
import { BASE, isPublic, needsMerchant, parseRoute, safeNext, type Route } from './routes';
import { ApiKeys } from './screens/ApiKeys';
import { PosTerminals } from './screens/pos/PosTerminals';
import { AuditLog } from './screens/AuditLog';
import { Balances } from './screens/Balances';
import { Invite } from './screens/Invite';
import { Login } from './screens/Login';
import { Overview } from './screens/Overview';
import { PaymentDetail } from './screens/payment/index.js';
import { PayoutDetail } from './screens/PayoutDetail';
import { Payments } from './screens/Payments';
import { Security } from './screens/Security';
import { Settings } from './screens/Settings';
import { Links } from './screens/links/index.js';
import { Invoices } from './screens/invoices/index.js';
import { Team } from './screens/Team';
import { Webhooks } from './screens/webhooks/index.js';

/** Kept per browser tab (sessionStorage): a second tab may look at live data while this one stays in test mode. */
const MODE_KEY = 'paygate.dashboard.mode';
const MERCHANT_KEY = 'paygate.dashboard.merchant';

function storedMode(): Mode {
  try {
    return sessionStorage.getItem(MODE_KEY) === 'live' ? 'live' : 'test';
  } catch {
    return 'test';
  }
}

function store(key: string, value: string): void {
  try {
    sessionStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode): the choice lasts as long as the page.
  }
}

function storedMerchant(): string | null {
  try {
    return sessionStorage.getItem(MERCHANT_KEY);
  } catch {
    return null;
  }
}

const currentPath = () => `${location.pathname}${location.search}`;

export function App(props: { config: DashboardPageConfig }) {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.pathname));
  const [session, setSession] = useState<DashboardSession | null | 'loading'>('loading');
  const [mode, setModeState] = useState<Mode>(storedMode);
  const [chosenMerchant, setChosenMerchant] = useState<string | null>(storedMerchant);
  const [navigation, setNavigation] = useState(0);
  const [unreachable, setUnreachable] = useState<string | null>(null);

  // What the client's middleware reads on every request; refs, so the client is made once.
  const state = useRef({ csrf: null as string | null, merchantId: null as string | null, mode });
  const routeRef = useRef(route);
  routeRef.current = route;

  const navigate = useCallback((path: string, options: { replace?: boolean } = {}) => {
    if (path !== currentPath()) {
      if (options.replace) history.replaceState(null, '', path);
      else history.pushState(null, '', path);
    }
    setRoute(parseRoute(location.pathname));
    setNavigation((n) => n + 1);
  }, []);

  const api = useMemo(
    () =>
      createDashboardClient({
        csrfToken: () => state.current.csrf,
        merchantId: () => state.current.merchantId,
        mode: () => state.current.mode,
        onUnauthorized: () => {
          state.current.csrf = null;
          setSession(null);
          if (!isPublic(routeRef.current)) {
            navigate(`${BASE}/login?next=${encodeURIComponent(currentPath())}`, { replace: true });
          }
        },
        onRefused: () => void refresh.current(),
      }),
    [navigate],
  );

  useEffect(() => {
    const onPop = () => {
      setRoute(parseRoute(location.pathname));
      setNavigation((n) => n + 1);
    };
    // Plain links to dashboard paths (in any screen) navigate inside the app, without reloading the page.
    const onClick = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      const anchor = (event.target as Element | null)?.closest?.('a');
      if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
      const url = new URL(anchor.href, location.href);
      if (url.origin !== location.origin || !/^\/dashboard(\/|$)/.test(url.pathname)) return;
      event.preventDefault();
      navigate(`${url.pathname}${url.search}`);
    };
    addEventListener('popstate', onPop);
    document.addEventListener('click', onClick);
    return () => {
      removeEventListener('popstate', onPop);
      document.removeEventListener('click', onClick);
    };
  }, [navigate]);

  const acceptSession = useCallback((next: DashboardSession) => {
    state.current.csrf = next.csrfToken;
    setSession(next);
  }, []);

  const refresh = useRef<() => Promise<void>>(async () => undefined);
  const refreshSession = useCallback(async () => {
    try {
      acceptSession(await request(api.GET('/v1/dashboard/session')));
      setUnreachable(null);
    } catch (err) {
      // A 401 went through onUnauthorized; anything else leaves the session as it was, and says so when there is
      // no session to show yet.
      const failure = asFailure(err);
      if (failure.status !== 401) setUnreachable(failure.message);
    }
  }, [api, acceptSession]);
  refresh.current = refreshSession;

  // Every navigation to a signed-in route reads the session again: an expired or revoked session lands on the
  // sign-in page at the next click, whatever the screen loads, and the memberships stay current.
  useEffect(() => {
    if (isPublic(route)) return;
    void refreshSession();
  }, [navigation, route.name === 'login' || route.name === 'invite']);

  const shell: ShellContextValue = useMemo(
    () => ({
      api,
      session: session === 'loading' ? null : session,
      refreshSession,
      signedIn: acceptSession,
      navigate: (path: string) => navigate(path),
    }),
    [api, session, refreshSession, acceptSession, navigate],
  );

  const signedInSession = session !== 'loading' && session !== null ? session : null;
  const membership = signedInSession
    ? (signedInSession.memberships.find((m) => m.merchantId === chosenMerchant) ?? signedInSession.memberships[0])
    : undefined;
  state.current.merchantId = membership?.merchantId ?? null;
  state.current.mode = mode;

  const dashboard: DashboardContextValue | null = useMemo(
    () =>
      membership
        ? { api, mode, role: membership.role, merchantId: membership.merchantId, navigate: (p: string) => navigate(p) }
        : null,
    [api, mode, membership?.merchantId, membership?.role, navigate],
  );

  const setMode = (next: Mode) => {
    store(MODE_KEY, next);
    state.current.mode = next;
    setModeState(next);
  };
  const chooseMerchant = (merchantId: string) => {
    store(MERCHANT_KEY, merchantId);
    state.current.merchantId = merchantId;
    setChosenMerchant(merchantId);
    navigate(BASE);
  };
  const signOut = async () => {
    try {
      await request(api.POST('/v1/dashboard/auth/logout'));
    } catch {
      // Signed out already (401) or the server is away: either way this page forgets the session.
    }
    state.current.csrf = null;
    setSession(null);
    navigate(`${BASE}/login`, { replace: true });
  };

  if (route.name === 'login' || route.name === 'invite') {
    const next = safeNext(new URLSearchParams(location.search).get('next'));
    return (
      <ShellContext.Provider value={shell}>
        <div class="public">
          <main id="main" class="public-main">
            {route.name === 'login' ? <Login next={next} /> : <Invite />}
          </main>
        </div>
      </ShellContext.Provider>
    );
  }
  if (!signedInSession) {
    if (unreachable !== null && session === 'loading') {
      return (
        <div class="boot" role="alert">
          <p>The dashboard could not load your session: {unreachable}</p>
          <button type="button" class="button" onClick={() => void refreshSession()}>
            Try again
          </button>
        </div>
      );
    }
    return (
      <p role="status" class="boot">
        Loading the dashboard…
      </p>
    );
  }
  return (
    <ShellContext.Provider value={shell}>
      <DashboardContext.Provider value={dashboard}>
        <Layout
          route={route}
          navigation={navigation}
          session={signedInSession}
          merchantId={membership?.merchantId ?? null}
          mode={mode}
          onMode={setMode}
          onMerchant={chooseMerchant}
          onSignOut={() => void signOut()}
          navigate={(p) => navigate(p)}
        >
          <Screen
            key={`${membership?.merchantId ?? ''}:${mode}`}
            route={route}
            hasMerchant={dashboard !== null}
            config={props.config}
          />
        </Layout>
      </DashboardContext.Provider>
    </ShellContext.Provider>
  );
}

function Screen(props: { route: Route; hasMerchant: boolean; config: DashboardPageConfig }) {
  const { route } = props;
  if (needsMerchant(route) && !props.hasMerchant) {
    return (
      <section>
        <h1 tabIndex={-1}>No merchant</h1>
        <p>
          You are not a member of any merchant any more. Ask an owner for an invitation. Your own security settings
          remain available.
        </p>
      </section>
    );
  }
  switch (route.name) {
    case 'overview':
      return <Overview />;
    case 'payments':
      return <Payments />;
    case 'payment':
      return <PaymentDetail paymentId={route.paymentId} chains={displayChains(props.config)} />;
    case 'balances':
      return <Balances chains={displayChains(props.config)} />;
    case 'payout':
      return <PayoutDetail payoutId={route.payoutId} chains={displayChains(props.config)} />;
    case 'webhooks':
      return <Webhooks />;
    case 'links':
      return <Links />;
    case 'invoices':
      return <Invoices />;
    case 'apiKeys':
      return <ApiKeys />;
    case 'pos':
      return <PosTerminals />;
    case 'settings':
      return <Settings chains={props.config.chains} />;
    case 'team':
      return <Team />;
    case 'auditLog':
      return <AuditLog />;
    case 'security':
      return <Security />;
    default:
      return (
        <section>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            There is no dashboard page at this address. <a href={BASE}>Go to the overview</a>.
          </p>
        </section>
      );
  }
}
