import { Router } from 'express';
import { merchantKeyRateLimit } from '../../http/rateLimit.js';
import type { Runtime } from '../../runtime.js';
import { activateTwoFactorHandler } from './activateTwoFactor.js';
import { createWebhookEndpointHandler } from './createWebhookEndpoint.js';
import { deleteWebhookEndpointHandler } from './deleteWebhookEndpoint.js';
import { disableTwoFactorHandler } from './disableTwoFactor.js';
import { getSessionHandler } from './getSession.js';
import { getWebhookDeliveryHandler } from './getWebhookDelivery.js';
import { getWebhookEndpointHandler } from './getWebhookEndpoint.js';
import { listSessionsHandler } from './listSessions.js';
import { listWebhookDeliveriesHandler } from './listWebhookDeliveries.js';
import { regenerateRecoveryCodesHandler } from './regenerateRecoveryCodes.js';
import { replayWebhookEventsHandler } from './replayWebhookEvents.js';
import { resendFailedWebhookDeliveriesHandler } from './resendFailedWebhookDeliveries.js';
import { resendWebhookDeliveryHandler } from './resendWebhookDelivery.js';
import { revokeSessionHandler } from './revokeSession.js';
import { rotateWebhookSecretHandler } from './rotateWebhookSecret.js';
import { sendTestEventHandler } from './sendTestEvent.js';
import { signInHandler } from './signIn.js';
import { signOutHandler } from './signOut.js';
import { startTwoFactorEnrolmentHandler } from './startTwoFactorEnrolment.js';
import { updateWebhookEndpointHandler } from './updateWebhookEndpoint.js';

/**
 * The dashboard API: sign-in, sessions and two-factor authentication; the webhook endpoint of the mode and its
 * deliveries. Mounted after the contract validator, with authentication and roles before it (http/dashboardAuth.ts); strict and case-sensitive like the merchant
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
  return router;
}
