import type { Knex } from 'knex';
import { servedLogo } from './logos.js';

/** The stored forms of accounts/keys.ts's key kind and mode (db/ depends on no domain folder). */
type KeyKind = 'merchant' | 'wallet' | 'app';
type Mode = 'test' | 'live';

export interface PartnerRow {
  id: string;
  name: string;
  created_at: number;
}

export interface MerchantRow {
  id: string;
  partner_id: string;
  name: string;
  icon_url: string | null;
  fee_config: Record<string, unknown> | null;
  settlement_addresses: Record<string, string>;
  collect_data: boolean;
  /** Every member must have a second factor before the dashboard lets them act (docs/decisions.md §21). */
  require_two_factor: boolean;
  /** direct: buyers pay the merchant's own address; collected: the operator's deposit addresses (docs/decisions.md §22). */
  settlement_mode: SettlementMode;
  created_at: number;
}

export type SettlementMode = 'direct' | 'collected';

export interface ApiKeyRow {
  id: string;
  kind: KeyKind;
  mode: Mode;
  prefix: string;
  hash: string;
  partner_id: string | null;
  label: string | null;
  pinned_version: string;
  created_at: number;
  revoked_at: number | null;
  /** The one merchant a dashboard-created key acts for; null for a partner-wide key. */
  merchant_id: string | null;
  /** Recorded at most once a minute per key. */
  last_used_at: number | null;
  /** Whether an owner allowed the key to send refunds that need an owner (settlement/refundPolicy.ts). */
  can_refund: boolean;
}

export async function insertPartner(db: Knex | Knex.Transaction, row: PartnerRow): Promise<void> {
  await db('partners').insert(row);
}

export async function findPartner(db: Knex | Knex.Transaction, id: string): Promise<PartnerRow | null> {
  const row = (await db('partners').where({ id }).first()) as PartnerRow | undefined;
  return row ? { ...row, created_at: Number(row.created_at) } : null;
}

export async function insertMerchant(db: Knex | Knex.Transaction, row: MerchantRow): Promise<void> {
  await db('merchants').insert({
    ...row,
    fee_config: row.fee_config === null ? null : JSON.stringify(row.fee_config),
    settlement_addresses: JSON.stringify(row.settlement_addresses),
  });
}

type RawMerchant = Omit<MerchantRow, 'fee_config' | 'settlement_addresses' | 'collect_data' | 'require_two_factor'> & {
  fee_config: string | null;
  settlement_addresses: string;
  collect_data: boolean | number;
  require_two_factor: boolean | number;
};

function fromRawMerchant(raw: RawMerchant): MerchantRow {
  return {
    ...raw,
    icon_url: servedLogo(raw.icon_url),
    fee_config: raw.fee_config === null ? null : (JSON.parse(raw.fee_config) as Record<string, unknown>),
    settlement_addresses: JSON.parse(raw.settlement_addresses) as Record<string, string>,
    collect_data: raw.collect_data === true || raw.collect_data === 1,
    require_two_factor: raw.require_two_factor === true || raw.require_two_factor === 1,
    created_at: Number(raw.created_at),
  };
}

export async function findMerchant(db: Knex | Knex.Transaction, id: string): Promise<MerchantRow | null> {
  const raw = (await db('merchants').where({ id }).first()) as RawMerchant | undefined;
  return raw ? fromRawMerchant(raw) : null;
}

/** The settings a merchant's owner may change (the dashboard's settings screen). */
export type MerchantSettingsChange = Partial<
  Pick<
    MerchantRow,
    'name' | 'icon_url' | 'settlement_addresses' | 'collect_data' | 'require_two_factor' | 'settlement_mode'
  >
>;

export async function updateMerchant(
  db: Knex | Knex.Transaction,
  id: string,
  change: MerchantSettingsChange,
): Promise<void> {
  const { settlement_addresses, ...rest } = change;
  await db('merchants')
    .where({ id })
    .update({
      ...rest,
      ...(settlement_addresses === undefined ? {} : { settlement_addresses: JSON.stringify(settlement_addresses) }),
    });
}

export async function insertApiKey(db: Knex | Knex.Transaction, row: ApiKeyRow): Promise<void> {
  await db('api_keys').insert(row);
}

function fromRawKey(raw: ApiKeyRow): ApiKeyRow {
  return {
    ...raw,
    // SQLite answers 0 or 1.
    can_refund: Boolean(raw.can_refund),
    created_at: Number(raw.created_at),
    revoked_at: raw.revoked_at === null ? null : Number(raw.revoked_at),
    last_used_at: raw.last_used_at === null ? null : Number(raw.last_used_at),
  };
}

/** The live (unrevoked) key with this hash. */
export async function findActiveKeyByHash(db: Knex | Knex.Transaction, hash: string): Promise<ApiKeyRow | null> {
  const raw = (await db('api_keys').where({ hash }).whereNull('revoked_at').first()) as ApiKeyRow | undefined;
  return raw ? fromRawKey(raw) : null;
}

/** Whether a key with this hash exists and was revoked. */
export async function isKeyRevokedByHash(db: Knex | Knex.Transaction, hash: string): Promise<boolean> {
  const raw = (await db('api_keys').where({ hash }).whereNotNull('revoked_at').first('id')) as
    { id: string } | undefined;
  return raw !== undefined;
}

/** An active key and the merchant a request names, as authentication needs them. */
export interface KeyWithMerchant {
  key: ApiKeyRow;
  /** null when no merchant has that id (whoever owns it: the caller compares the partners). */
  merchant: MerchantRow | null;
}

type RawKeyWithMerchant = ApiKeyRow & {
  [C in keyof RawMerchant as `m_${C}`]: RawMerchant[C] | null;
};

/**
 * The active key with this hash and the merchant with this id, in one statement. The merchant comes by a left join
 * on its id alone, so an unknown merchant and another partner's merchant stay distinguishable for the caller. Built
 * by knex, not prepared by hand: a key that passed is cached (accounts/credentialCache.ts), so this read runs once
 * per credential and cache period, not on every request.
 */
export async function findActiveKeyWithMerchant(
  db: Knex | Knex.Transaction,
  hash: string,
  merchantId: string,
): Promise<KeyWithMerchant | null> {
  // knex would refuse a finished transaction as well, but in other words than this read always has.
  if ('isCompleted' in db && db.isCompleted())
    throw new Error('findActiveKeyWithMerchant: the transaction is already complete.');
  const raw = (await db('api_keys as k')
    .leftJoin('merchants as m', (join) => {
      join.onVal('m.id', '=', merchantId);
    })
    .where('k.hash', hash)
    .whereNull('k.revoked_at')
    .first(
      'k.id',
      'k.kind',
      'k.mode',
      'k.prefix',
      'k.hash',
      'k.partner_id',
      'k.label',
      'k.pinned_version',
      'k.created_at',
      'k.revoked_at',
      'k.merchant_id',
      'k.last_used_at',
      'k.can_refund',
      'm.id as m_id',
      'm.partner_id as m_partner_id',
      'm.name as m_name',
      'm.icon_url as m_icon_url',
      'm.fee_config as m_fee_config',
      'm.settlement_addresses as m_settlement_addresses',
      'm.collect_data as m_collect_data',
      'm.require_two_factor as m_require_two_factor',
      'm.settlement_mode as m_settlement_mode',
      'm.created_at as m_created_at',
    )) as RawKeyWithMerchant | undefined;
  if (!raw) return null;
  const {
    m_id,
    m_partner_id,
    m_name,
    m_icon_url,
    m_fee_config,
    m_settlement_addresses,
    m_collect_data,
    m_require_two_factor,
    m_settlement_mode,
    m_created_at,
  } = raw;
  const key: ApiKeyRow = {
    id: raw.id,
    kind: raw.kind,
    mode: raw.mode,
    prefix: raw.prefix,
    hash: raw.hash,
    partner_id: raw.partner_id,
    label: raw.label,
    pinned_version: raw.pinned_version,
    created_at: raw.created_at,
    revoked_at: raw.revoked_at,
    merchant_id: raw.merchant_id,
    last_used_at: raw.last_used_at === null ? null : Number(raw.last_used_at),
    can_refund: raw.can_refund,
  };
  const merchant =
    m_id === null
      ? null
      : fromRawMerchant({
          id: m_id,
          partner_id: m_partner_id!,
          name: m_name!,
          icon_url: m_icon_url,
          fee_config: m_fee_config,
          settlement_addresses: m_settlement_addresses!,
          collect_data: m_collect_data!,
          require_two_factor: m_require_two_factor!,
          settlement_mode: m_settlement_mode!,
          created_at: m_created_at!,
        });
  return { key: fromRawKey(key), merchant };
}

/** Records a key's use at `at`; never moves `last_used_at` back (another process may have written a later one). */
export async function recordKeyUse(db: Knex | Knex.Transaction, id: string, at: number): Promise<void> {
  await db('api_keys')
    .where({ id })
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', at))
    .update({ last_used_at: at });
}

/**
 * The merchant keys that can act for a merchant in one mode, newest first, active and revoked: those bound to it and
 * the partner-wide ones of its partner.
 */
export async function listKeysForMerchant(
  db: Knex | Knex.Transaction,
  scope: { merchantId: string; partnerId: string; mode: Mode },
): Promise<ApiKeyRow[]> {
  const rows = (await db('api_keys')
    .where({ kind: 'merchant', mode: scope.mode })
    .andWhere((q) =>
      q
        .where('merchant_id', scope.merchantId)
        .orWhere((q2) => q2.whereNull('merchant_id').andWhere('partner_id', scope.partnerId)),
    )
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as ApiKeyRow[];
  return rows.map(fromRawKey);
}

export interface KeyFilter {
  /** Start of the display prefix, e.g. `sk_test_Ab`; matched case-sensitively. */
  prefix?: string;
  partnerId?: string;
  kind?: KeyKind;
}

export async function listKeys(db: Knex | Knex.Transaction, filter: KeyFilter = {}): Promise<ApiKeyRow[]> {
  const query = db('api_keys').orderBy([{ column: 'created_at' }, { column: 'id' }]);
  if (filter.partnerId) query.where('partner_id', filter.partnerId);
  if (filter.kind) query.where('kind', filter.kind);
  if (filter.prefix !== undefined) {
    // LIKE with an escaped prefix: `_` is a wildcard in LIKE and every key contains it.
    const escaped = filter.prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    query.whereRaw("prefix LIKE ? ESCAPE '\\'", [`${escaped}%`]);
  }
  const rows = ((await query) as ApiKeyRow[]).map(fromRawKey);
  // SQLite's LIKE ignores ASCII case and base62 does not, so the exact test is repeated here.
  return filter.prefix === undefined ? rows : rows.filter((r) => r.prefix.startsWith(filter.prefix!));
}

export async function listKeysByPrefix(db: Knex | Knex.Transaction, prefix: string): Promise<ApiKeyRow[]> {
  return listKeys(db, { prefix });
}

export async function findKeyById(db: Knex | Knex.Transaction, id: string): Promise<ApiKeyRow | null> {
  const raw = (await db('api_keys').where({ id }).first()) as ApiKeyRow | undefined;
  return raw ? fromRawKey(raw) : null;
}

export async function hasAnyPartner(db: Knex | Knex.Transaction): Promise<boolean> {
  return (await db('partners').select('id').first()) !== undefined;
}

export async function revokeKey(db: Knex | Knex.Transaction, id: string, at: number): Promise<boolean> {
  return (await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: at })) === 1;
}
