import { Router } from 'express';
import { merchantKeyRateLimit } from '../../http/rateLimit.js';
import type { Runtime } from '../../runtime.js';
import { acceptInvitationHandler } from './acceptInvitation.js';
import { createInvitationHandler } from './createInvitation.js';
import { createWebhookEndpointHandler } from './createWebhookEndpoint.js';
import { deleteWebhookEndpointHandler } from './deleteWebhookEndpoint.js';
import { getTeamHandler } from './getTeam.js';
import { getWebhookDeliveryHandler } from './getWebhookDelivery.js';
import { getWebhookEndpointHandler } from './getWebhookEndpoint.js';
import { listAuditLogHandler } from './listAuditLog.js';
import { listWebhookDeliveriesHandler } from './listWebhookDeliveries.js';
import { lookupInvitationHandler } from './lookupInvitation.js';
import { removeMemberHandler } from './removeMember.js';
import { replayWebhookEventsHandler } from './replayWebhookEvents.js';
import { resendFailedWebhookDeliveriesHandler } from './resendFailedWebhookDeliveries.js';
import { resendWebhookDeliveryHandler } from './resendWebhookDelivery.js';
import { revokeInvitationHandler } from './revokeInvitation.js';
import { rotateWebhookSecretHandler } from './rotateWebhookSecret.js';
import { sendTestEventHandler } from './sendTestEvent.js';
import { updateMemberHandler } from './updateMember.js';
import { updateWebhookEndpointHandler } from './updateWebhookEndpoint.js';

/**
 * The dashboard API: the webhook endpoint of the key's mode and its deliveries. Mounted after the contract
 * validator, with authentication before it (http/dashboardAuth.ts); strict and case-sensitive like the merchant
 * router, so no spelling of a path reaches a handler that the validator and the authentication did not see.
 */
export function dashboardRouter(runtime: Runtime): Router {
  const router = Router({ caseSensitive: true, strict: true });
  // After the schema, before any lookup (docs/decisions.md §2); the key's bucket is the merchant API's too.
  router.use(merchantKeyRateLimit(runtime));

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
