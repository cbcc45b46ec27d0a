/**
 * Partners and the merchants they own. A merchant's settlement addresses are where the gateway sends buyers'
 * funds, so a malformed one is refused here rather than discovered when a payment is lost.
 */
import type { Knex } from 'knex';
import { code as currencyByCode } from 'currency-codes';
import {
  findMerchant,
  findPartner,
  insertMerchant,
  insertPartner,
  updateMerchant,
  type MerchantRow,
  type MerchantSettingsChange,
  type PartnerRow,
} from '../db/queries/accounts.js';
import { deleteLogo } from '../db/queries/logos.js';
import { credentialRevoked } from './credentialCache.js';
import { isUniqueViolation } from '../db/failure.js';
import { accountRules, forNamespaceOf } from '../chains/adapters.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { parseFeeConfig, type BasePlusPercentConfig } from '../payments/fees.js';
import { cleanText, inTransaction, type AccountsDeps } from './accountsDeps.js';
import { checkSettlementMode, type SettlementMode, type SettlementModeContext } from './settlementMode.js';

export interface NewPartner {
  name: string;
}

export async function createPartner(
  deps: AccountsDeps,
  input: NewPartner,
  trx?: Knex.Transaction,
): Promise<PartnerRow> {
  const row: PartnerRow = { id: newId.partner(), name: cleanText(input.name, 'name', 200), created_at: deps.now() };
  await inTransaction(deps, trx, (t) => insertPartner(t, row));
  return row;
}

/** Throws `partner_not_found` unless the partner exists; callers run it inside the write's transaction. */
export async function requirePartner(db: Knex | Knex.Transaction, partnerId: string): Promise<PartnerRow> {
  const partner = await findPartner(db, partnerId);
  if (!partner) throw new ApiError('partner_not_found', `No partner with id "${partnerId}".`);
  return partner;
}

export interface NewMerchant {
  partnerId: string;
  name: string;
  iconUrl?: string | null;
  /** A `base_plus_percent` configuration (docs/decisions.md §11); null or absent: no fee. */
  feeConfig?: unknown;
  /** CAIP-2 chain id → address. */
  settlementAddresses?: Record<string, string>;
  /** Every payment requires the buyer's identity data, whatever its amount (docs/decisions.md §16). */
  collectData?: boolean;
  /** `direct` when absent; `collected` is checked against `settlementContext` (accounts/settlementMode.ts). */
  settlementMode?: SettlementMode;
  /** An explicit id (imports, fixtures); generated when absent. */
  id?: string;
}

export async function createMerchant(
  deps: AccountsDeps,
  input: NewMerchant,
  trx?: Knex.Transaction,
  settlementContext: SettlementModeContext = { depositSeed: false },
): Promise<MerchantRow> {
  const row: MerchantRow = {
    id: input.id === undefined ? newId.merchant() : parseMerchantId(input.id),
    partner_id: input.partnerId,
    name: cleanText(input.name, 'name', 200),
    icon_url: input.iconUrl == null ? null : refuseIconUrl(),
    fee_config:
      input.feeConfig == null ? null : (validateFeeConfig(input.feeConfig) as unknown as Record<string, unknown>),
    settlement_addresses: parseSettlementAddresses(input.settlementAddresses ?? {}),
    collect_data: input.collectData ?? false,
    require_two_factor: false,
    settlement_mode: input.settlementMode ?? 'direct',
    created_at: deps.now(),
  };
  checkSettlementMode(row.settlement_mode, row.settlement_addresses, settlementContext);
  const taken = () => new ApiError('merchant_exists', `A merchant with id "${row.id}" already exists.`);
  try {
    await inTransaction(deps, trx, async (t) => {
      await requirePartner(t, row.partner_id);
      if (input.id !== undefined && (await findMerchant(t, row.id))) throw taken();
      await insertMerchant(t, row);
    });
  } catch (err) {
    // Two creations with the same explicit id can both pass the check; the primary key decides.
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  return row;
}

function parseMerchantId(id: string): string {
  // Merchant-Id travels in a header, which must be printable ASCII; 40 is the column's width.
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(id)) {
    throw new ApiError('params_validation', 'A merchant id must be 1–40 characters of A-Z a-z 0-9 _ -.');
  }
  return id;
}

/**
 * A merchant's icon is a logo uploaded to Paygate (accounts/logo.ts), never a URL elsewhere: the checkout loads no
 * image from another origin (a third-party request tells that party who is paying whom), so a remote URL was
 * accepted here and then never shown (issue 31 finding 10, docs/decisions.md §26.23).
 */
function refuseIconUrl(): never {
  throw new ApiError(
    'params_validation',
    'A logo is uploaded as an image (PUT /v1/dashboard/settings/logo), not given as a URL: the checkout shows only images Paygate serves.',
    { param: 'iconUrl' },
  );
}

/**
 * parseFeeConfig checks the shape; here also the meaning: the base is in a real currency (it is converted at the
 * option's quote) and the percent is at most 100 %, since a larger one is always a typo.
 */
export function validateFeeConfig(raw: unknown): BasePlusPercentConfig {
  let config: BasePlusPercentConfig;
  try {
    config = parseFeeConfig(raw);
  } catch (err) {
    throw new ApiError('params_validation', `Invalid fee configuration: ${(err as Error).message}.`);
  }
  const currency = /^iso4217\/([A-Z]{3})$/.exec(config.base.unit)?.[1];
  if (!currency || !currencyByCode(currency)) {
    throw new ApiError('params_validation', `Invalid fee configuration: unknown base unit "${config.base.unit}".`);
  }
  if (BigInt(config.percent.numerator) > BigInt(config.percent.denominator)) {
    throw new ApiError('params_validation', 'Invalid fee configuration: the percent exceeds 100 %.');
  }
  return {
    kind: 'base_plus_percent',
    base: { unit: config.base.unit, value: config.base.value },
    percent: { numerator: config.percent.numerator, denominator: config.percent.denominator },
  };
}

/** Validates `{caip2: address}`; only the namespaces the gateway pays out on are accepted. */
export function parseSettlementAddresses(raw: unknown): Record<string, string> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ApiError('params_validation', 'settlementAddresses must be an object of CAIP-2 chain id → address.', {
      param: 'settlementAddresses',
    });
  }
  const out: Record<string, string> = {};
  for (const [chain, address] of Object.entries(raw as Record<string, unknown>)) {
    // Each refusal names the entry at fault, so a form shows it beside that chain's field.
    const param = { param: `settlementAddresses.${chain}` };
    if (typeof address !== 'string') {
      throw new ApiError('params_validation', `The settlement address for ${chain} must be a string.`, param);
    }
    const rules = forNamespaceOf(accountRules, chain);
    if (!rules) {
      const forms = accountRules.map((r) => r.chainIdForm).join(' or ');
      throw new ApiError(
        'params_validation',
        `Settlement chain "${chain}" is not supported: use an ${forms} CAIP-2 id.`,
        param,
      );
    }
    if (!rules.isChainId(chain)) throw badChain(chain).withParam(param.param);
    if (rules.normaliseAccount(`${chain}:${address}`) === null) {
      throw new ApiError(
        'params_validation',
        `The settlement address for ${chain} must be ${rules.addressForm}.`,
        param,
      );
    }
    out[chain] = address;
  }
  return out;
}

function badChain(chain: string): ApiError {
  return new ApiError('params_validation', `"${chain}" is not a valid CAIP-2 chain id.`);
}

/** What the dashboard's settings screen shows and changes (the contract's MerchantSettings, camelCase). */
export interface MerchantSettings {
  name: string;
  iconUrl: string | null;
  settlementAddresses: Record<string, string>;
  collectData: boolean;
  requireTwoFactor: boolean;
  settlementMode: SettlementMode;
}

function settingsOf(m: MerchantRow): MerchantSettings {
  return {
    name: m.name,
    iconUrl: m.icon_url,
    settlementAddresses: m.settlement_addresses,
    collectData: m.collect_data,
    requireTwoFactor: m.require_two_factor,
    settlementMode: m.settlement_mode,
  };
}

async function requireMerchant(db: Knex | Knex.Transaction, merchantId: string): Promise<MerchantRow> {
  const merchant = await findMerchant(db, merchantId);
  if (!merchant) throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
  return merchant;
}

export async function getMerchantSettings(deps: AccountsDeps, merchantId: string): Promise<MerchantSettings> {
  return settingsOf(await requireMerchant(deps.db.knex, merchantId));
}

/**
 * Changes the fields given, all or nothing: every field is checked before anything is written, and a refusal names
 * its field (`param`). `settlementAddresses` replaces the whole map. Authentication caches merchants with their
 * keys (accounts/credentialCache.ts), so the change drops this process's cache like a revocation: payments created
 * from now on use the new addresses at once here, within the cache's TTL in other processes. The checkout reads the
 * merchant's name and icon from the database on every page.
 */
export async function updateMerchantSettings(
  deps: AccountsDeps,
  merchantId: string,
  input: Partial<MerchantSettings>,
  /** What `settlementMode: collected` needs of the server; a change of mode applies to payments created after it. */
  settlementContext: SettlementModeContext = { depositSeed: false },
): Promise<MerchantSettings> {
  const change: MerchantSettingsChange = {};
  if (input.name !== undefined) change.name = cleanText(input.name, 'name', 200);
  if (input.iconUrl !== undefined) {
    if (input.iconUrl !== null) refuseIconUrl();
    change.icon_url = null;
  }
  if (input.settlementAddresses !== undefined) {
    change.settlement_addresses = parseSettlementAddresses(input.settlementAddresses);
  }
  if (input.collectData !== undefined) change.collect_data = input.collectData;
  if (input.requireTwoFactor !== undefined) change.require_two_factor = input.requireTwoFactor;
  if (input.settlementMode !== undefined) change.settlement_mode = input.settlementMode;
  const updated = await deps.db.knex.transaction(async (trx) => {
    const current = await requireMerchant(trx, merchantId);
    if (change.settlement_mode !== undefined || change.settlement_addresses !== undefined) {
      // Checked on the merchant as it would be, so removing the last payout address of a collected merchant is
      // refused like switching to collected without one.
      checkSettlementMode(
        change.settlement_mode ?? current.settlement_mode,
        change.settlement_addresses ?? current.settlement_addresses,
        settlementContext,
      );
    }
    if (Object.keys(change).length > 0) await updateMerchant(trx, merchantId, change);
    // `iconUrl: null` removes the uploaded logo with its URL: nothing serves a logo no merchant shows.
    if (change.icon_url === null) await deleteLogo(trx, merchantId);
    return requireMerchant(trx, merchantId);
  });
  credentialRevoked();
  return settingsOf(updated);
}
