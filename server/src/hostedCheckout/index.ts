/**
 * What `GET /pay/{paymentId}` answers: the checkout page for a payment in any state, or the same page in its
 * "payment not found" state with a 404.
 */
import type { CheckoutPageConfig } from '@paygate/web/pageConfig';
import type { Mode } from '../accounts/keys.js';
import { solanaPayUri, type Chains } from '../chains/index.js';
import { findMerchant } from '../db/queries/accounts.js';
import { findPayment } from '../db/queries/payments.js';
import type { Database } from '../db/connect.js';
import { paymentInfoOf } from '../checkout/buyerPayments.js';
import { solanaPayLink } from '../checkout/solanaPay.js';
import { gatewayUrlOf } from '../payments/merchantPayments.js';
import type { HostedCheckoutApps } from './appIds.js';
import { checkoutChains, type CheckoutTemplate } from './pageTemplate.js';

export { hostedCheckoutAppId, hostedCheckoutApps, HOSTED_CHECKOUT_LABEL, type HostedCheckoutApps } from './appIds.js';
export { checkoutTemplate, CHECKOUT_LANGUAGES, DEFAULT_WEB_DIST, pickLanguage } from './pageTemplate.js';

export interface HostedCheckoutDeps {
  db: Database;
  chains: Chains | null;
  publicBaseUrl: string;
  apps: HostedCheckoutApps;
  now: () => number;
}

export async function renderCheckoutPage(
  deps: HostedCheckoutDeps,
  template: CheckoutTemplate,
  paymentId: string,
  lang: string,
): Promise<{ status: 200 | 404; html: string }> {
  const notFound: CheckoutPageConfig = {
    paymentId: null,
    lang,
    appId: null,
    reference: null,
    payment: null,
    paymentLink: null,
    solanaPayLink: null,
    chains: [],
    serverTime: deps.now(),
    redirect: null,
  };
  const payment = await findPayment(deps.db.knex, paymentId);
  if (!payment) return { status: 404, html: template.render(notFound, 'Payment not found · Paygate') };
  const merchant = await findMerchant(deps.db.knex, payment.merchant_id);
  const mode: Mode = payment.live ? 'live' : 'test';
  const chains = checkoutChains(deps.chains, mode, merchant?.settlement_addresses ?? {});
  const config: CheckoutPageConfig = {
    paymentId: payment.id,
    lang,
    appId: await deps.apps.appIdFor(mode),
    reference: payment.reference_id,
    // The gateway's own read of an open payment, embedded: the page shows it without a first round trip (§26.15).
    // Any other status (or one past its deadline, which the gateway's read would expire first) is read by the page.
    payment:
      merchant && payment.status === 'requires_action' && payment.expires_at > deps.now()
        ? paymentInfoOf(payment, merchant, null)
        : null,
    paymentLink: gatewayUrlOf(deps.publicBaseUrl, payment.id),
    solanaPayLink: solanaPayUri(chains, (chain) => solanaPayLink(deps.publicBaseUrl, payment.id, chain)),
    chains,
    serverTime: deps.now(),
    // Stored only as a pair of https URLs (merchantPayments.ts): either both are there or the redirect is off.
    redirect:
      payment.success_url && payment.error_url
        ? { successUrl: payment.success_url, errorUrl: payment.error_url }
        : null,
  };
  return { status: 200, html: template.render(config, `${merchant?.name ?? 'Payment'} · Paygate`) };
}
