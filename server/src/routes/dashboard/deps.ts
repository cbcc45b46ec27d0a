import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import type { AuditDeps } from '../../audit/auditLog.js';
import type { Chains } from '../../chains/index.js';
import type { Config } from '../../config.js';
import type { Database } from '../../db/connect.js';
import type { DashboardAuthDeps } from '../../http/dashboardAuth.js';
import type { LifecycleDeps } from '../../payments/lifecycle.js';
import type { MerchantDeps } from '../../payments/merchantPayments.js';
import type { InvitationDeps } from '../../team/invitations.js';
import type { SignInDeps } from '../../users/signIn.js';
import type { SecurityEventSink, UsersDeps } from '../../users/usersDeps.js';
import type { WebhookDeps } from '../../webhooks/deliveryDeps.js';

/** The users module's deps for a handler that records a security event itself: the sink is required here. */
export type SecurityEventDeps = UsersDeps & { securityEvents: SecurityEventSink };

/** What the CSV exports of the settlement read: the ledger's tables, and the chains that name its assets. */
export interface SettlementExportDeps {
  db: Database;
  chains: Chains | null;
  now: () => number;
}

/** What the dashboard's handlers read, each its own part of it (a Runtime has all of it). */
export type DashboardRouterDeps = SignInDeps &
  DashboardAuthDeps &
  SecurityEventDeps &
  InvitationDeps &
  AccountsDeps &
  AuditDeps &
  LifecycleDeps &
  MerchantDeps &
  WebhookDeps &
  SettlementExportDeps & {
    config: Pick<Config, 'settlement' | 'webhookSourceAddresses' | 'publicBaseUrl'>;
    /** The per-key rate limit, shared with the merchant router (http/rateLimit.ts). */
    merchantKeyLimit: RequestHandler;
  };
