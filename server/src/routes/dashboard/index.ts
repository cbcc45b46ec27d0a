import { Router } from 'express';
import { merchantKeyRateLimit } from '../../http/rateLimit.js';
import type { Runtime } from '../../runtime.js';
import { acceptInvitationHandler } from './acceptInvitation.js';
import { activateTwoFactorHandler } from './activateTwoFactor.js';
import { cancelDashboardPaymentHandler } from './cancelDashboardPayment.js';
import { createApiKeyHandler } from './createApiKey.js';
import { createInvitationHandler } from './createInvitation.js';
import { createWebhookEndpointHandler } from './createWebhookEndpoint.js';
import { deleteWebhookEndpointHandler } from './deleteWebhookEndpoint.js';
import { disableTwoFactorHandler } from './disableTwoFactor.js';
import { exportLedgerHandler } from './exportLedger.js';
import { exportPaymentsHandler } from './exportPayments.js';
import { exportPayoutsHandler } from './exportPayouts.js';
import { getDashboardFeeBalanceHandler } from './getDashboardFeeBalance.js';
import { getDashboardPaymentHandler } from './getDashboardPayment.js';
import { getDashboardPayoutHandler } from './getDashboardPayout.js';
import { getDashboardSettlementBalancesHandler } from './getDashboardSettlementBalances.js';
import { getOverviewHandler } from './getOverview.js';
import { getPaymentTimelineHandler } from './getPaymentTimeline.js';
import { getSessionHandler } from './getSession.js';
import { getSettingsHandler } from './getSettings.js';
import { getTeamHandler } from './getTeam.js';
import { getWebhookDeliveryHandler } from './getWebhookDelivery.js';
import { getWebhookEndpointHandler } from './getWebhookEndpoint.js';
import { getWebhookSourcesHandler } from './getWebhookSources.js';
import { listApiKeysHandler } from './listApiKeys.js';
import { listAuditLogHandler } from './listAuditLog.js';
import { listDashboardPaymentsHandler } from './listDashboardPayments.js';
import { listDashboardPayoutsHandler } from './listDashboardPayouts.js';
import { listSessionsHandler } from './listSessions.js';
import { listWebhookDeliveriesHandler } from './listWebhookDeliveries.js';
import { lookupInvitationHandler } from './lookupInvitation.js';
import { refundDashboardPaymentHandler } from './refundDashboardPayment.js';
import { regenerateRecoveryCodesHandler } from './regenerateRecoveryCodes.js';
import { removeMemberHandler } from './removeMember.js';
import { replayWebhookEventsHandler } from './replayWebhookEvents.js';
import { resendFailedWebhookDeliveriesHandler } from './resendFailedWebhookDeliveries.js';
import { resendWebhookDeliveryHandler } from './resendWebhookDelivery.js';
import { revokeApiKeyHandler } from './revokeApiKey.js';
import { revokeInvitationHandler } from './revokeInvitation.js';
import { revokeSessionHandler } from './revokeSession.js';
import { rotateApiKeyHandler } from './rotateApiKey.js';
import { rotateWebhookSecretHandler } from './rotateWebhookSecret.js';
import { sendTestEventHandler } from './sendTestEvent.js';
import { signInHandler } from './signIn.js';
import { signOutHandler } from './signOut.js';
import { simulateDashboardPaymentHandler } from './simulateDashboardPayment.js';
import { startTwoFactorEnrolmentHandler } from './startTwoFactorEnrolment.js';
import { updateMemberHandler } from './updateMember.js';
import { updateSettingsHandler } from './updateSettings.js';
import { updateWebhookEndpointHandler } from './updateWebhookEndpoint.js';

/**
 * The dashboard API: sign-in, sessions and two-factor authentication; the overview, payments, API keys and
 * settings of the merchant; the webhook endpoint of the request's mode and its deliveries. Mounted after the
 * contract validator, with authentication and roles before it (http/dashboardAuth.ts); strict and case-sensitive like the merchant
 * router, so no spelling of a path reaches a handler that the validator and the authentication did not see.
 */
export function dashboardRouter(runtime: Runtime): Router {
  const router = Router({ caseSensitive: true, strict: true });
  // After the schema, before any lookup (docs/decisions.md §2); the key's bucket is the merchant API's too, a
  // session's is its user's. Sign-in has no bucket: the login throttle (users/loginThrottle.ts) guards it.
  router.use(merchantKeyRateLimit(runtime));

  router.post('/v1/dashboard/auth/login', signInHandler(runtime));
  router.post('/v1/dashboard/auth/logout', signOutHandler(runtime));
  router.get('/v1/dashboard/session', getSessionHandler(runtime));
  router.get('/v1/dashboard/sessions', listSessionsHandler(runtime));
  router.delete('/v1/dashboard/sessions/:sessionId', revokeSessionHandler(runtime));
  router.post('/v1/dashboard/two-factor/enrol', startTwoFactorEnrolmentHandler(runtime));
  router.post('/v1/dashboard/two-factor/activate', activateTwoFactorHandler(runtime));
  router.post('/v1/dashboard/two-factor/disable', disableTwoFactorHandler(runtime));
  router.post('/v1/dashboard/two-factor/recovery-codes', regenerateRecoveryCodesHandler(runtime));

  const endpoint = '/v1/dashboard/webhook-endpoint';
  router.post(endpoint, createWebhookEndpointHandler(runtime));
  router.get(endpoint, getWebhookEndpointHandler(runtime));
  router.patch(endpoint, updateWebhookEndpointHandler(runtime));
  router.delete(endpoint, deleteWebhookEndpointHandler(runtime));
  router.post(`${endpoint}/rotate-secret`, rotateWebhookSecretHandler(runtime));
  router.post(`${endpoint}/test`, sendTestEventHandler(runtime));

  const deliveries = '/v1/dashboard/webhook-deliveries';
  router.get(deliveries, listWebhookDeliveriesHandler(runtime));
  router.post(`${deliveries}/resend-failed`, resendFailedWebhookDeliveriesHandler(runtime));
  router.get(`${deliveries}/:deliveryId`, getWebhookDeliveryHandler(runtime));
  router.post(`${deliveries}/:deliveryId/resend`, resendWebhookDeliveryHandler(runtime));
  router.post('/v1/dashboard/webhook-events/replay', replayWebhookEventsHandler(runtime));
  router.get('/v1/dashboard/webhook-sources', getWebhookSourcesHandler(runtime));

  router.get('/v1/dashboard/overview', getOverviewHandler(runtime));
  const payments = '/v1/dashboard/payments';
  router.get(payments, listDashboardPaymentsHandler(runtime));
  // Before `:paymentId`, which would otherwise take "export" for an id.
  router.get(`${payments}/export`, exportPaymentsHandler(runtime));
  router.get(`${payments}/:paymentId`, getDashboardPaymentHandler(runtime));
  router.get(`${payments}/:paymentId/timeline`, getPaymentTimelineHandler(runtime));
  router.post(`${payments}/:paymentId/cancel`, cancelDashboardPaymentHandler(runtime));
  router.post(`${payments}/:paymentId/refund`, refundDashboardPaymentHandler(runtime));
  router.post(`${payments}/:paymentId/simulate`, simulateDashboardPaymentHandler(runtime));

  const keys = '/v1/dashboard/api-keys';
  router.get(keys, listApiKeysHandler(runtime));
  router.post(keys, createApiKeyHandler(runtime));
  router.post(`${keys}/:keyId/rotate`, rotateApiKeyHandler(runtime));
  router.delete(`${keys}/:keyId`, revokeApiKeyHandler(runtime));

  router.get('/v1/dashboard/settings', getSettingsHandler(runtime));
  router.patch('/v1/dashboard/settings', updateSettingsHandler(runtime));
  router.get('/v1/dashboard/fees', getDashboardFeeBalanceHandler(runtime));
  router.get('/v1/dashboard/balances', getDashboardSettlementBalancesHandler(runtime));
  const payouts = '/v1/dashboard/payouts';
  router.get(payouts, listDashboardPayoutsHandler(runtime));
  // Before `:payoutId`, which would otherwise take "export" for an id.
  router.get(`${payouts}/export`, exportPayoutsHandler(runtime));
  router.get(`${payouts}/:payoutId`, getDashboardPayoutHandler(runtime));
  router.get('/v1/dashboard/ledger/export', exportLedgerHandler(runtime));

  // Team, invitations and the audit log (owner only, but the invitation link's two open operations).
  const team = '/v1/dashboard/team';
  router.get(team, getTeamHandler(runtime));
  router.post(`${team}/invitations`, createInvitationHandler(runtime));
  router.delete(`${team}/invitations/:invitationId`, revokeInvitationHandler(runtime));
  router.patch(`${team}/members/:userId`, updateMemberHandler(runtime));
  router.delete(`${team}/members/:userId`, removeMemberHandler(runtime));
  router.post('/v1/dashboard/invitations/lookup', lookupInvitationHandler(runtime));
  router.post('/v1/dashboard/invitations/accept', acceptInvitationHandler(runtime));
  router.get('/v1/dashboard/audit-log', listAuditLogHandler(runtime));
  return router;
}
