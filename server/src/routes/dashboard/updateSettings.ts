import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { updateMerchantSettings } from '../../accounts/merchants.js';
import type { Config } from '../../config.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Operation = operations['updateSettings'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** PATCH /v1/dashboard/settings: all or nothing; a refused field is named in `param` */
export function updateSettingsHandler(
  deps: AccountsDeps & { config: Pick<Config, 'settlement'> },
): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const settings = await updateMerchantSettings(deps, dashboardScopeOf(res).merchantId, req.body, {
      depositSeed: deps.config.settlement.depositSeed !== null,
    });
    res.locals.auditDetails = {
      fields: Object.keys(req.body).sort(),
      ...(req.body.settlementMode === undefined ? {} : { settlementMode: req.body.settlementMode }),
    };
    res.json(settings);
  };
}
