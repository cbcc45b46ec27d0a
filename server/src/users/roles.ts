/**
 * Who may call each dashboard operation, in one table the dashboard authentication enforces for every request
 * (http/dashboardAuth.ts). Typed over the generated contract's operations, so an operation added to the contract
 * without an entry here fails the type check.
 *
 * - a role: a merchant-scoped operation; the caller's role for the `Merchant-Id` must be at least this one
 *   (viewer < developer < owner). An API key acts as `developer`.
 * - 'session': any signed-in user, no merchant (own sessions, own two-factor authentication, sign-out).
 * - 'open': no credential (sign-in, invitation lookup and acceptance).
 */
import type { operations } from '../generated/dashboard.js';
import type { RoleName } from '../db/queries/users.js';

export type Role = RoleName;
export type Access = Role | 'session' | 'open';
export type OperationId = keyof operations;

export const ROLES: readonly Role[] = ['viewer', 'developer', 'owner'];

const RANK: Record<Role, number> = { viewer: 1, developer: 2, owner: 3 };

export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export function isRole(value: unknown): value is Role {
  return value === 'owner' || value === 'developer' || value === 'viewer';
}

export const OPERATION_ROLES: Record<OperationId, Access> = {
  // Sign-in and sessions
  signIn: 'open',
  signOut: 'session',
  getSession: 'session',
  listSessions: 'session',
  revokeSession: 'session',
  // Two-factor authentication
  startTwoFactorEnrolment: 'session',
  activateTwoFactor: 'session',
  disableTwoFactor: 'session',
  regenerateRecoveryCodes: 'session',
  // Team, invitations, audit log
  getTeam: 'owner',
  createInvitation: 'owner',
  revokeInvitation: 'owner',
  updateMember: 'owner',
  removeMember: 'owner',
  lookupInvitation: 'open',
  acceptInvitation: 'open',
  listAuditLog: 'owner',
  // Webhooks: reads viewer, changes developer
  getWebhookEndpoint: 'viewer',
  createWebhookEndpoint: 'developer',
  updateWebhookEndpoint: 'developer',
  deleteWebhookEndpoint: 'developer',
  rotateWebhookSecret: 'developer',
  sendTestEvent: 'developer',
  listWebhookDeliveries: 'viewer',
  getWebhookDelivery: 'viewer',
  resendWebhookDelivery: 'developer',
  resendFailedWebhookDeliveries: 'developer',
  replayWebhookEvents: 'developer',
  // Merchant data: reads viewer (API keys developer: even prefixes are not a viewer's business), actions developer,
  // settings changes owner.
  getOverview: 'viewer',
  listDashboardPayments: 'viewer',
  listDashboardPaymentLinks: 'viewer',
  getDashboardPaymentLink: 'viewer',
  createDashboardPaymentLink: 'developer',
  updateDashboardPaymentLink: 'developer',
  deactivateDashboardPaymentLink: 'developer',
  exportPayments: 'viewer',
  getDashboardPayment: 'viewer',
  getPaymentTimeline: 'viewer',
  cancelDashboardPayment: 'developer',
  refundDashboardPayment: 'developer',
  // Who may send which on-chain refund is the refund policy's (an owner for a claim link or a large amount).
  getDashboardRefundOptions: 'viewer',
  sendDashboardRefund: 'developer',
  cancelDashboardRefund: 'developer',
  simulateDashboardPayment: 'developer',
  createDashboardTestPayment: 'developer',
  listApiKeys: 'developer',
  createApiKey: 'developer',
  rotateApiKey: 'developer',
  revokeApiKey: 'developer',
  // Point-of-sale terminals: their keys take payments, so like API keys.
  listPosTerminals: 'developer',
  createPosTerminal: 'developer',
  revokePosTerminal: 'developer',
  getSettings: 'viewer',
  updateSettings: 'owner',
  uploadLogo: 'owner',
  removeLogo: 'owner',
  getDashboardFeeBalance: 'viewer',
  getDashboardSettlementBalances: 'viewer',
  listDashboardPayouts: 'viewer',
  // Invoices (§30.9): reads viewer, issuing, voiding and numbering developer (the merchant API's key may do all three).
  listDashboardInvoices: 'viewer',
  createDashboardInvoice: 'developer',
  voidDashboardInvoice: 'developer',
  getDashboardInvoiceSequence: 'viewer',
  updateDashboardInvoiceSequence: 'developer',
  getDashboardPayout: 'viewer',
  exportPayouts: 'viewer',
  exportLedger: 'viewer',
  getWebhookSources: 'viewer',
};
