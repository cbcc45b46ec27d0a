import type { RequestHandler } from 'express';
import type { AccountsDeps } from '../../accounts/accountsDeps.js';
import { getMerchantSettings, updateMerchantSettings, type MerchantSettings } from '../../accounts/merchants.js';
import type { Config } from '../../config.js';
import type { operations } from '../../generated/dashboard.js';
import { dashboardScopeOf } from '../../http/dashboardAuth.js';

type Operation = operations['updateSettings'];
type Body = Operation['requestBody']['content']['application/json'];
type Ok = Operation['responses'][200]['content']['application/json'];

/** Fields short enough to show as "from → to" in the audit log; the address map is named only. */
const SHOWN: readonly (keyof MerchantSettings)[] = [
  'name',
  'iconUrl',
  'collectData',
  'requireTwoFactor',
  'settlementMode',
];

/**
 * The audit details of a settings change: the fields whose value changed (the settings form sends every field, and
 * the log listed them all, changed or not: issue 31 finding 13), with from and to where they are short.
 */
function settingsChange(before: MerchantSettings, after: MerchantSettings): Record<string, unknown> {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const sorted = (o: Record<string, string>) =>
    Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  const fields = (Object.keys(after) as (keyof MerchantSettings)[])
    .filter((k) =>
      k === 'settlementAddresses'
        ? !same(sorted(before.settlementAddresses), sorted(after.settlementAddresses))
        : !same(before[k], after[k]),
    )
    .sort();
  const changes = Object.fromEntries(
    fields.filter((k) => SHOWN.includes(k)).map((k) => [k, { from: before[k], to: after[k] }]),
  );
  return {
    fields,
    ...(Object.keys(changes).length === 0 ? {} : { changes }),
    ...(fields.includes('settlementMode') ? { settlementMode: after.settlementMode } : {}),
  };
}

/** PATCH /v1/dashboard/settings: all or nothing; a refused field is named in `param` */
export function updateSettingsHandler(
  deps: AccountsDeps & { config: Pick<Config, 'settlement'> },
): RequestHandler<Record<string, never>, Ok, Body> {
  return async (req, res) => {
    const merchantId = dashboardScopeOf(res).merchantId;
    const before = await getMerchantSettings(deps, merchantId);
    const settings = await updateMerchantSettings(deps, merchantId, req.body, {
      depositSeed: deps.config.settlement.depositSeed !== null,
    });
    res.locals.auditDetails = settingsChange(before, settings);
    res.json(settings);
  };
}
