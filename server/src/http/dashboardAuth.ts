/**
 * Authentication of the dashboard API. Its credential is the merchant's: `Api-Key` + `Merchant-Id`, checked with the
 * same codes in the same order as the merchant API (http/merchantAuth.ts), before the contract validator. The key's
 * mode selects what is addressed: a test key manages the test endpoint and sees test deliveries only.
 */
import type { RequestHandler, Response } from 'express';
import type { Runtime } from '../runtime.js';
import type { Mode } from '../webhooks/endpoints.js';
import { merchantAuthOf, merchantKeyAuth } from './merchantAuth.js';

export function dashboardAuth(runtime: Runtime): RequestHandler {
  return merchantKeyAuth(runtime, 'dashboard');
}

export interface DashboardScope {
  merchantId: string;
  mode: Mode;
}

/** The merchant and mode a dashboard request acts for. */
export function dashboardScopeOf(res: Response): DashboardScope {
  const auth = merchantAuthOf(res);
  return { merchantId: auth.merchant.id, mode: auth.live ? 'live' : 'test' };
}
