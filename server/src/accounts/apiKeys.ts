/**
 * Partner (merchant) API keys, wallet API keys and app ids (docs/decisions.md §4). A secret exists in memory only
 * while it is minted and returned once; the database keeps its SHA-256 and a 12-character display prefix.
 */
import type { Knex } from 'knex';
import type { Database } from '../db/connect.js';
import {
  findActiveKeyByHash,
  findKeyById,
  findMerchant,
  insertApiKey,
  listKeysForMerchant,
  listKeys as selectKeys,
  revokeKey as markRevoked,
  type ApiKeyRow,
  type KeyFilter,
} from '../db/queries/accounts.js';
import { ApiError } from '../errors.js';
import { CURRENT_VERSION } from '../versions.js';
import { newId } from '../ids.js';
import { credentialRevoked } from './credentialCache.js';
import { cleanText, inTransaction, type AccountsDeps } from './accountsDeps.js';
import { hashKey, mintKey, parseKey, type KeyKind, type Mode } from './keys.js';
import { requirePartner } from './merchants.js';
import type { components } from '../generated/dashboard.js';

/** A key as it may be shown: never the secret, never the hash. */
export type KeyInfo = Omit<ApiKeyRow, 'hash'>;

export interface CreatedKey {
  key: KeyInfo;
  /** The full key. Shown to the caller once; it cannot be recovered later. */
  secret: string;
}

export interface NewKey {
  kind: KeyKind;
  mode: Mode;
  /** Required for merchant keys (a partner key acts for that partner's merchants); optional otherwise. */
  partnerId?: string | null;
  label?: string | null;
  /** A merchant key that may send refunds needing an owner (settlement/refundPolicy.ts); the operator's choice. */
  canRefund?: boolean;
}

function toInfo(row: ApiKeyRow): KeyInfo {
  const { hash: _hash, ...info } = row;
  return info;
}

export async function createKey(deps: AccountsDeps, input: NewKey, trx?: Knex.Transaction): Promise<CreatedKey> {
  if (input.kind === 'merchant' && !input.partnerId) {
    throw new ApiError('params_validation', 'A merchant API key belongs to a partner: give its partner id.');
  }
  const label = input.label == null || input.label.trim() === '' ? null : cleanText(input.label, 'label', 200);
  return inTransaction(deps, trx, async (t) => {
    if (input.partnerId) await requirePartner(t, input.partnerId);
    return insertMinted(t, deps.now(), {
      kind: input.kind,
      mode: input.mode,
      partner_id: input.partnerId ?? null,
      label,
      pinned_version: CURRENT_VERSION,
      can_refund: input.kind === 'merchant' && input.canRefund === true,
    });
  });
}

async function insertMinted(
  trx: Knex.Transaction,
  now: number,
  fields: Pick<ApiKeyRow, 'kind' | 'mode' | 'partner_id' | 'label' | 'pinned_version'> &
    Partial<Pick<ApiKeyRow, 'merchant_id' | 'can_refund'>>,
): Promise<CreatedKey> {
  const minted = mintKey(fields.kind, fields.mode);
  const row: ApiKeyRow = {
    id: newId.key(),
    ...fields,
    merchant_id: fields.merchant_id ?? null,
    can_refund: fields.can_refund === true,
    prefix: minted.prefix,
    hash: minted.hash,
    created_at: now,
    revoked_at: null,
    last_used_at: null,
  };
  await insertApiKey(trx, row);
  return { key: toInfo(row), secret: minted.secret };
}

export async function listKeys(deps: AccountsDeps, filter: KeyFilter = {}): Promise<KeyInfo[]> {
  return (await selectKeys(deps.db.knex, filter)).map(toInfo);
}

/**
 * The one active key a target names: a key id (`key_…`) or the start of a display prefix. A prefix shared by
 * several active keys is refused rather than guessed, since revoking the wrong key breaks an integration.
 */
async function resolveActiveKey(trx: Knex.Transaction, target: string): Promise<ApiKeyRow> {
  if (target.trim() === '') throw new ApiError('params_validation', 'Give a key id or a key prefix.');
  if (target.startsWith('key_')) {
    const row = await findKeyById(trx, target);
    if (!row) throw new ApiError('api_key_not_found', `No API key with id "${target}".`);
    if (row.revoked_at !== null) throw new ApiError('api_key_not_found', `API key ${target} is already revoked.`);
    return row;
  }
  const matches = await selectKeys(trx, { prefix: target });
  const active = matches.filter((k) => k.revoked_at === null);
  if (active.length === 0) {
    const detail = matches.length > 0 ? 'matches only revoked keys' : 'matches no API key';
    throw new ApiError('api_key_not_found', `The prefix "${target}" ${detail}.`);
  }
  if (active.length > 1) {
    throw new ApiError(
      'params_validation',
      `The prefix "${target}" matches ${active.length} active keys (${active.map((k) => k.id).join(', ')}); give the key id.`,
    );
  }
  return active[0]!;
}

async function revokeRow(trx: Knex.Transaction, row: ApiKeyRow, at: number): Promise<KeyInfo> {
  // The guarded update loses cleanly to a concurrent revocation instead of revoking twice.
  if (!(await markRevoked(trx, row.id, at))) {
    throw new ApiError('api_key_not_found', `API key ${row.id} is already revoked.`);
  }
  return toInfo({ ...row, revoked_at: at });
}

/**
 * Revokes the key a key id or prefix names; it stops authenticating at once in this process, and in others within
 * their credential cache's TTL (accounts/credentialCache.ts).
 */
export async function revokeKey(deps: AccountsDeps, target: string): Promise<KeyInfo> {
  const revoked = await deps.db.knex.transaction(async (trx) =>
    revokeRow(trx, await resolveActiveKey(trx, target), deps.now()),
  );
  credentialRevoked();
  return revoked;
}

/**
 * Replaces a key with a new one of the same kind, mode, partner, label and version pin, revoking the old one in
 * the same transaction. The pin is kept, not moved to the newest version, so rotating a credential never changes
 * the responses an integration receives.
 */
export async function rotateKey(
  deps: AccountsDeps,
  target: string,
): Promise<{ revoked: KeyInfo; created: CreatedKey }> {
  const rotated = await deps.db.knex.transaction(async (trx) => {
    const old = await resolveActiveKey(trx, target);
    const now = deps.now();
    const revoked = await revokeRow(trx, old, now);
    const created = await insertMinted(trx, now, {
      kind: old.kind,
      mode: old.mode,
      partner_id: old.partner_id,
      label: old.label,
      pinned_version: old.pinned_version,
      merchant_id: old.merchant_id,
      can_refund: old.can_refund,
    });
    return { revoked, created };
  });
  credentialRevoked();
  return rotated;
}

/**
 * The active key `secret` is, when it is a well-formed key of `expectedKind`; otherwise null. The lookup goes by
 * hash through a unique index, so no stored secret is ever compared byte by byte, and the format check first
 * keeps garbage from reaching the database. The caller decides what the key may do (mode, partner, sandbox).
 */
export async function authenticateKey(
  db: Database | Knex | Knex.Transaction,
  secret: string,
  expectedKind: KeyKind,
): Promise<ApiKeyRow | null> {
  const parsed = parseKey(secret);
  if (!parsed || parsed.kind !== expectedKind) return null;
  const row = await findActiveKeyByHash(typeof db === 'function' ? db : db.knex, hashKey(secret));
  if (!row || !matchesFormat(row, parsed)) return null;
  return row;
}

/** Whether a stored key is of the kind and mode its secret's format says. */
export function matchesFormat(row: Pick<ApiKeyRow, 'kind' | 'mode'>, format: { kind: KeyKind; mode: Mode }): boolean {
  return row.kind === format.kind && row.mode === format.mode;
}

/* The dashboard's key management: keys bound to one merchant, in the request's mode. */

export type ApiKeyJson = components['schemas']['ApiKey'];

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export function apiKeyJson(k: KeyInfo): ApiKeyJson {
  return {
    id: k.id,
    prefix: k.prefix,
    mode: k.mode,
    label: k.label,
    scope: k.merchant_id === null ? 'partner' : 'merchant',
    canRefund: k.can_refund,
    createdAt: Math.floor(k.created_at / 1000),
    lastUsedAt: seconds(k.last_used_at),
    revokedAt: seconds(k.revoked_at),
  };
}

/** The merchant a dashboard request acts for; authentication found it, so its absence is a concurrent deletion. */
async function merchantOf(db: Knex | Knex.Transaction, merchantId: string) {
  const merchant = await findMerchant(db, merchantId);
  if (!merchant) throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
  return merchant;
}

export async function listMerchantKeys(deps: AccountsDeps, merchantId: string, mode: Mode): Promise<ApiKeyJson[]> {
  const merchant = await merchantOf(deps.db.knex, merchantId);
  const rows = await listKeysForMerchant(deps.db.knex, { merchantId, partnerId: merchant.partner_id, mode });
  return rows.map((r) => apiKeyJson(toInfo(r)));
}

/**
 * A new secret key bound to the merchant, in the request's mode only: a test credential must not mint a live key
 * (the contract's `mode` is checked against the request's, not trusted).
 */
export async function createMerchantKey(
  deps: AccountsDeps,
  merchantId: string,
  requestMode: Mode,
  input: { mode: Mode; label?: string; canRefund?: boolean },
): Promise<{ apiKey: ApiKeyJson; secret: string }> {
  if (input.mode !== requestMode) {
    const other = input.mode;
    throw new ApiError(
      'params_validation',
      `mode must be the request's mode (${requestMode}): switch to ${other} mode to create a ${other} key.`,
      { param: 'mode' },
    );
  }
  const label = input.label == null || input.label.trim() === '' ? null : cleanText(input.label, 'label', 200);
  const created = await deps.db.knex.transaction(async (trx) => {
    const merchant = await merchantOf(trx, merchantId);
    return insertMinted(trx, deps.now(), {
      kind: 'merchant',
      mode: requestMode,
      partner_id: merchant.partner_id,
      merchant_id: merchant.id,
      label,
      pinned_version: CURRENT_VERSION,
      // The route lets only an owner's session ask for it (routes/dashboard/createApiKey.ts).
      can_refund: input.canRefund === true,
    });
  });
  return { apiKey: apiKeyJson(created.key), secret: created.secret };
}

/**
 * The key `keyId` names, when it can act for this merchant in this mode and may be managed here: another merchant's,
 * another mode's or an unknown key is 404 `invalid_params` (as for any dashboard resource that is not visible); a
 * partner-wide key is 403 `forbidden` (the operator manages it); a revoked one 409 `invalid_state`.
 */
async function manageableKey(trx: Knex.Transaction, merchantId: string, mode: Mode, keyId: string): Promise<ApiKeyRow> {
  const merchant = await merchantOf(trx, merchantId);
  const row = await findKeyById(trx, keyId);
  const visible =
    row !== null &&
    row.kind === 'merchant' &&
    row.mode === mode &&
    (row.merchant_id === merchantId || (row.merchant_id === null && row.partner_id === merchant.partner_id));
  if (!visible) {
    throw new ApiError('invalid_params', `No API key ${keyId} for this merchant in ${mode} mode.`, { status: 404 });
  }
  if (row.merchant_id === null) {
    throw new ApiError(
      'forbidden',
      `API key ${keyId} is a partner-wide key, managed by the operator with paygate admin.`,
    );
  }
  if (row.revoked_at !== null) throw keyRevoked(keyId);
  return row;
}

const keyRevoked = (keyId: string) => new ApiError('invalid_state', `API key ${keyId} is already revoked.`);

/** Marks the key revoked, losing cleanly to a concurrent revocation (409, like a key already revoked). */
async function revokeManaged(trx: Knex.Transaction, row: ApiKeyRow, at: number): Promise<KeyInfo> {
  if (!(await markRevoked(trx, row.id, at))) throw keyRevoked(row.id);
  return toInfo({ ...row, revoked_at: at });
}

export async function revokeMerchantKey(
  deps: AccountsDeps,
  merchantId: string,
  mode: Mode,
  keyId: string,
): Promise<ApiKeyJson> {
  const revoked = await deps.db.knex.transaction(async (trx) =>
    revokeManaged(trx, await manageableKey(trx, merchantId, mode, keyId), deps.now()),
  );
  credentialRevoked();
  return apiKeyJson(revoked);
}

/** A new key of the same mode, label, merchant and version pin; the old one revoked in the same transaction. */
export async function rotateMerchantKey(
  deps: AccountsDeps,
  merchantId: string,
  mode: Mode,
  keyId: string,
): Promise<{ apiKey: ApiKeyJson; secret: string; revoked: ApiKeyJson }> {
  const rotated = await deps.db.knex.transaction(async (trx) => {
    const old = await manageableKey(trx, merchantId, mode, keyId);
    const now = deps.now();
    const revoked = await revokeManaged(trx, old, now);
    const created = await insertMinted(trx, now, {
      kind: old.kind,
      mode: old.mode,
      partner_id: old.partner_id,
      label: old.label,
      pinned_version: old.pinned_version,
      merchant_id: old.merchant_id,
      can_refund: old.can_refund,
    });
    return { revoked, created };
  });
  credentialRevoked();
  return {
    apiKey: apiKeyJson(rotated.created.key),
    secret: rotated.created.secret,
    revoked: apiKeyJson(rotated.revoked),
  };
}
