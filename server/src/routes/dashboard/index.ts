import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { contractRouter } from '../../http/operations.js';
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
 * The dashboard API, by operation (http/operations.ts): sign-in, sessions and two-factor authentication; the
 * overview, payments, API keys and settings of the merchant; the webhook endpoint of the request's mode and its
 * deliveries; the team and the audit log. Mounted after the contract validator, with authentication and roles
 * before it (http/dashboardAuth.ts).
 */
export function dashboardRouter(runtime: Runtime): RequestHandler {
  // After the schema, before any lookup (docs/decisions.md §2); the key's bucket is the merchant API's too, a
  // session's is its user's. Sign-in has no bucket: the login throttle (users/loginThrottle.ts) guards it.
  return contractRouter<operations>('dashboard', [runtime.merchantKeyLimit], {
    signIn: signInHandler(runtime),
    signOut: signOutHandler(runtime),
    getSession: getSessionHandler(runtime),
    listSessions: listSessionsHandler(runtime),
    revokeSession: revokeSessionHandler(runtime),
    startTwoFactorEnrolment: startTwoFactorEnrolmentHandler(runtime),
    activateTwoFactor: activateTwoFactorHandler(runtime),
    disableTwoFactor: disableTwoFactorHandler(runtime),
    regenerateRecoveryCodes: regenerateRecoveryCodesHandler(runtime),

    createWebhookEndpoint: createWebhookEndpointHandler(runtime),
    getWebhookEndpoint: getWebhookEndpointHandler(runtime),
    updateWebhookEndpoint: updateWebhookEndpointHandler(runtime),
    deleteWebhookEndpoint: deleteWebhookEndpointHandler(runtime),
    rotateWebhookSecret: rotateWebhookSecretHandler(runtime),
    sendTestEvent: sendTestEventHandler(runtime),
    listWebhookDeliveries: listWebhookDeliveriesHandler(runtime),
    resendFailedWebhookDeliveries: resendFailedWebhookDeliveriesHandler(runtime),
    getWebhookDelivery: getWebhookDeliveryHandler(runtime),
    resendWebhookDelivery: resendWebhookDeliveryHandler(runtime),
    replayWebhookEvents: replayWebhookEventsHandler(runtime),
    getWebhookSources: getWebhookSourcesHandler(runtime),

    getOverview: getOverviewHandler(runtime),
    listDashboardPayments: listDashboardPaymentsHandler(runtime),
    exportPayments: exportPaymentsHandler(runtime),
    getDashboardPayment: getDashboardPaymentHandler(runtime),
    getPaymentTimeline: getPaymentTimelineHandler(runtime),
    cancelDashboardPayment: cancelDashboardPaymentHandler(runtime),
    refundDashboardPayment: refundDashboardPaymentHandler(runtime),
    simulateDashboardPayment: simulateDashboardPaymentHandler(runtime),

    listApiKeys: listApiKeysHandler(runtime),
    createApiKey: createApiKeyHandler(runtime),
    rotateApiKey: rotateApiKeyHandler(runtime),
    revokeApiKey: revokeApiKeyHandler(runtime),

    getSettings: getSettingsHandler(runtime),
    updateSettings: updateSettingsHandler(runtime),
    getDashboardFeeBalance: getDashboardFeeBalanceHandler(runtime),
    getDashboardSettlementBalances: getDashboardSettlementBalancesHandler(runtime),
    listDashboardPayouts: listDashboardPayoutsHandler(runtime),
    exportPayouts: exportPayoutsHandler(runtime),
    getDashboardPayout: getDashboardPayoutHandler(runtime),
    exportLedger: exportLedgerHandler(runtime),

    // Team, invitations and the audit log (owner only, but the invitation link's two open operations).
    getTeam: getTeamHandler(runtime),
    createInvitation: createInvitationHandler(runtime),
    revokeInvitation: revokeInvitationHandler(runtime),
    updateMember: updateMemberHandler(runtime),
    removeMember: removeMemberHandler(runtime),
    lookupInvitation: lookupInvitationHandler(runtime),
    acceptInvitation: acceptInvitationHandler(runtime),
    listAuditLog: listAuditLogHandler(runtime),
  });
}
