/**
 * The page calls our own gateway API with the hosted checkout's public app id, like any wallet app would. The
 * `Client-Id` names this browser tab's session: random, kept in sessionStorage, so a reload keeps it and the rate
 * limit counts per buyer rather than per server.
 */
import { PaygateWallet } from '@paygate/sdk-wallet';

const CLIENT_ID_KEY = 'paygate.clientId';

function clientId(): string {
  try {
    const stored = sessionStorage.getItem(CLIENT_ID_KEY);
    if (stored) return stored;
  } catch {
    // Storage may be disabled; a fresh id per load is then fine.
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const id = `checkout-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  try {
    sessionStorage.setItem(CLIENT_ID_KEY, id);
  } catch {
    // See above.
  }
  return id;
}

export function gatewayFor(appId: string, now: () => number): PaygateWallet {
  return new PaygateWallet({
    // The API is this page's own origin: the CSP allows connecting nowhere else.
    baseUrl: location.origin,
    appId,
    clientId: clientId(),
    sdkPlatform: 'web-checkout',
    now,
  });
}
