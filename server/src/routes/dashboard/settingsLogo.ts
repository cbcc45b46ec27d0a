import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { removeMerchantLogo, setMerchantLogo } from '../../accounts/logo.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Upload = operations['uploadLogo'];
type Body = Upload['requestBody']['content']['application/json'];
type Ok = Upload['responses'][200]['content']['application/json'];

/** PUT /v1/dashboard/settings/logo: the audit entry names the new URL (never the bytes). */
export function uploadLogoHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const settings = await setMerchantLogo(deps, dashboardScopeOf(res).merchantId, req.body.image);
    res.locals.auditDetails = { iconUrl: settings.iconUrl };
    res.json(settings);
  };
}

/** DELETE /v1/dashboard/settings/logo */
export function removeLogoHandler(deps: AccountsDeps): RequestHandler<Record<string, never>, Ok> {
  return async (_req, res) => {
    res.json(await removeMerchantLogo(deps, dashboardScopeOf(res).merchantId));
  };
}
