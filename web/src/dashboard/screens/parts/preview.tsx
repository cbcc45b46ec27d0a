/**
 * The four screens alone, for their browser tests until the dashboard shell (web-shell's App, router and session)
 * is merged: the page reads `{merchantId, mode, role}` from its JSON block, talks to the real API with the same
 * client and headers as the shell (the session cookie, `X-CSRF-Token`, `Merchant-Id`, `Paygate-Mode`), and
 * routes the screens' paths with the History API. Never built into web/dist: test/dashboard/screens.ts builds it.
 */
import createClient from 'openapi-fetch';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { paths } from '../../../generated/dashboard.js';
import type { DashboardClient } from '../../api.js';
import { DashboardContext, type Mode, type Role } from '../../context.js';
import { Overview } from '../Overview.js';
import { PaymentDetail } from '../PaymentDetail.js';
import { Payments } from '../Payments.js';
import { Webhooks } from '../Webhooks.js';

interface PreviewConfig {
  merchantId: string;
  /** The session's CSRF token (the shell reads it from GET /v1/dashboard/session). */
  csrfToken: string;
  mode: Mode;
  role: Role;
}

const config = JSON.parse(document.getElementById('paygate-config')?.textContent ?? 'null') as PreviewConfig;

const api: DashboardClient = createClient<paths>({ baseUrl: location.origin, credentials: 'same-origin' });
api.use({
  onRequest({ request }) {
    request.headers.set('Merchant-Id', config.merchantId);
    request.headers.set('Paygate-Mode', config.mode);
    if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF-Token', config.csrfToken);
    return request;
  },
});

function Screen({ path }: { path: string }) {
  const detail = /^\/dashboard\/payments\/([^/]+)$/.exec(path);
  if (detail) return <PaymentDetail paymentId={decodeURIComponent(detail[1]!)} />;
  if (path === '/dashboard/payments') return <Payments />;
  if (path === '/dashboard/webhooks') return <Webhooks />;
  return <Overview />;
}

function Preview() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);
  const value = useMemo(
    () => ({
      api,
      mode: config.mode,
      role: config.role,
      merchantId: config.merchantId,
      navigate(to: string) {
        history.pushState(null, '', to);
        setPath(new URL(to, location.origin).pathname);
      },
    }),
    [],
  );
  return (
    <DashboardContext.Provider value={value}>
      <main class="preview-main">
        <Screen key={path} path={path} />
      </main>
    </DashboardContext.Provider>
  );
}

render(<Preview />, document.getElementById('app')!);
