import type { RequestHandler } from 'express';
import type { operations } from '../../generated/dashboard.js';
import { contractRouter } from '../../http/operations.js';
import { acceptInvitationHandler } from './acceptInvitation.js';
import { activateTwoFactorHandler } from './activateTwoFactor.js';
import { cancelDashboardPaymentHandler } from './cancelDashboardPayment.js';
import { createDashboardTestPaymentHandler } from './createDashboardTestPayment.js';
import { createApiKeyHandler } from './createApiKey.js';
import { createInvitationHandler } from './createInvitation.js';
import { createPosTerminalHandler } from './createPosTerminal.js';
import { createWebhookEndpointHandler } from './createWebhookEndpoint.js';
import type { DashboardRouterDeps } from './deps.js';
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
import { listPosTerminalsHandler } from './listPosTerminals.js';
import * as invoices from './dashboardInvoices.js';
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
import { revokePosTerminalHandler } from './revokePosTerminal.js';
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
import { removeLogoHandler, uploadLogoHandler } from './settingsLogo.js';
import { updateWebhookEndpointHandler } from './updateWebhookEndpoint.js';

import { dashboardPaymentLinkHandlers } from './dashboardLinks.js';
import { dashboardRefundHandlers } from './dashboardRefunds.js';
/**
 * The dashboard API, by operation (http/operations.ts): sign-in, sessions and two-factor authentication; the
 * overview, payments, API keys and settings of the merchant; the webhook endpoint of the request's mode and its
 * deliveries; the team and the audit log. Mounted after the contract validator, with authentication and roles
 * before it (http/dashboardAuth.ts).
 */
export function dashboardRouter(deps: DashboardRouterDeps): RequestHandler {
  // After the schema, before any lookup (docs/decisions.md §2); the key's bucket is the merchant API's too, a
  // session's is its user's. Sign-in has no bucket: the login throttle (users/loginThrottle.ts) guards it.
  return contractRouter<operations>('dashboard', [deps.merchantKeyLimit], {
    signIn: signInHandler(deps),
    signOut: signOutHandler(deps),
    getSession: getSessionHandler(deps),
    listSessions: listSessionsHandler(deps),
    revokeSession: revokeSessionHandler(deps),
    startTwoFactorEnrolment: startTwoFactorEnrolmentHandler(deps),
    activateTwoFactor: activateTwoFactorHandler(deps),
    disableTwoFactor: disableTwoFactorHandler(deps),
    regenerateRecoveryCodes: regenerateRecoveryCodesHandler(deps),

    createWebhookEndpoint: createWebhookEndpointHandler(deps),
    getWebhookEndpoint: getWebhookEndpointHandler(deps),
    updateWebhookEndpoint: updateWebhookEndpointHandler(deps),
    deleteWebhookEndpoint: deleteWebhookEndpointHandler(deps),
    rotateWebhookSecret: rotateWebhookSecretHandler(deps),
    sendTestEvent: sendTestEventHandler(deps),
    listWebhookDeliveries: listWebhookDeliveriesHandler(deps),
    resendFailedWebhookDeliveries: resendFailedWebhookDeliveriesHandler(deps),
    getWebhookDelivery: getWebhookDeliveryHandler(deps),
    resendWebhookDelivery: resendWebhookDeliveryHandler(deps),
    replayWebhookEvents: replayWebhookEventsHandler(deps),
    getWebhookSources: getWebhookSourcesHandler(deps),

    getOverview: getOverviewHandler(deps),
    listDashboardPayments: listDashboardPaymentsHandler(deps),
    exportPayments: exportPaymentsHandler(deps),
    getDashboardPayment: getDashboardPaymentHandler(deps),
    getPaymentTimeline: getPaymentTimelineHandler(deps),
    cancelDashboardPayment: cancelDashboardPaymentHandler(deps),
    refundDashboardPayment: refundDashboardPaymentHandler(deps),
    ...dashboardRefundHandlers(deps),
    simulateDashboardPayment: simulateDashboardPaymentHandler(deps),
    createDashboardTestPayment: createDashboardTestPaymentHandler(deps),

    listApiKeys: listApiKeysHandler(deps),
    createApiKey: createApiKeyHandler(deps),
    rotateApiKey: rotateApiKeyHandler(deps),
    revokeApiKey: revokeApiKeyHandler(deps),
    listPosTerminals: listPosTerminalsHandler(deps),
    createPosTerminal: createPosTerminalHandler(deps),
    revokePosTerminal: revokePosTerminalHandler(deps),

    getSettings: getSettingsHandler(deps),
    updateSettings: updateSettingsHandler(deps),
    uploadLogo: uploadLogoHandler(deps),
    removeLogo: removeLogoHandler(deps),
    getDashboardFeeBalance: getDashboardFeeBalanceHandler(deps),
    getDashboardSettlementBalances: getDashboardSettlementBalancesHandler(deps),
    listDashboardPayouts: listDashboardPayoutsHandler(deps),
    listDashboardInvoices: invoices.listDashboardInvoicesHandler(deps),
    createDashboardInvoice: invoices.createDashboardInvoiceHandler(deps),
    voidDashboardInvoice: invoices.voidDashboardInvoiceHandler(deps),
    getDashboardInvoiceSequence: invoices.getDashboardInvoiceSequenceHandler(deps),
    updateDashboardInvoiceSequence: invoices.updateDashboardInvoiceSequenceHandler(deps),
    exportPayouts: exportPayoutsHandler(deps),
    getDashboardPayout: getDashboardPayoutHandler(deps),
    exportLedger: exportLedgerHandler(deps),

    // Team, invitations and the audit log (owner only, but the invitation link's two open operations).
    getTeam: getTeamHandler(deps),
    createInvitation: createInvitationHandler(deps),
    revokeInvitation: revokeInvitationHandler(deps),
    updateMember: updateMemberHandler(deps),
    removeMember: removeMemberHandler(deps),
    lookupInvitation: lookupInvitationHandler(deps),
    acceptInvitation: acceptInvitationHandler(deps),
    listAuditLog: listAuditLogHandler(deps),
    ...dashboardPaymentLinkHandlers(deps),
  });
}
