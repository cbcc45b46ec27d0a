/** Dashboard users, their memberships (role per merchant), TOTP state and recovery codes (migration 006). */
import type { Knex } from 'knex';
import { servedLogo } from './logos.js';

type Db = Knex | Knex.Transaction;

/** owner | developer | viewer, as stored in memberships.role. */
export type RoleName = 'owner' | 'developer' | 'viewer';

export interface UserRow {
  id: string;
  email_hash: string;
  email_sealed: string;
  password_hash: string;
  totp_secret_sealed: string | null;
  totp_pending_sealed: string | null;
  totp_enabled_at: number | null;
  totp_last_step: number | null;
  created_at: number;
  disabled_at: number | null;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function fromRawUser(raw: UserRow): UserRow {
  return {
    ...raw,
    totp_enabled_at: nullableNumber(raw.totp_enabled_at),
    totp_last_step: nullableNumber(raw.totp_last_step),
    created_at: Number(raw.created_at),
    disabled_at: nullableNumber(raw.disabled_at),
  };
}

export async function insertUser(db: Db, row: UserRow): Promise<void> {
  await db('users').insert(row);
}

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const raw = (await db('users').where({ id }).first()) as UserRow | undefined;
  return raw ? fromRawUser(raw) : null;
}

export async function findUserByEmailHash(db: Db, emailHash: string): Promise<UserRow | null> {
  const raw = (await db('users').where({ email_hash: emailHash }).first()) as UserRow | undefined;
  return raw ? fromRawUser(raw) : null;
}

/** One user whose stored hash is any of `emailHashes` (the hash under each configured key). */
export async function findUserByEmailHashes(db: Db, emailHashes: string[]): Promise<UserRow | null> {
  const raw = (await db('users').whereIn('email_hash', emailHashes).first()) as UserRow | undefined;
  return raw ? fromRawUser(raw) : null;
}

export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<Omit<UserRow, 'id' | 'email_hash' | 'created_at'>>,
): Promise<void> {
  await db('users').where({ id }).update(changes);
}

/**
 * Records a TOTP step as used, only if it is later than the last one: two requests with the same code cannot both
 * succeed, whichever process serves them. True when this call recorded it.
 */
export async function claimTotpStep(db: Db, id: string, step: number): Promise<boolean> {
  const changed = await db('users')
    .where({ id })
    .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step });
  return changed === 1;
}

export interface MembershipRow {
  user_id: string;
  merchant_id: string;
  role: RoleName;
  created_at: number;
}

export async function insertMembership(db: Db, row: MembershipRow): Promise<void> {
  await db('memberships').insert(row);
}

export async function findMembership(db: Db, userId: string, merchantId: string): Promise<MembershipRow | null> {
  const raw = (await db('memberships').where({ user_id: userId, merchant_id: merchantId }).first()) as
    MembershipRow | undefined;
  return raw ? { ...raw, created_at: Number(raw.created_at) } : null;
}

export interface MembershipWithMerchant {
  merchantId: string;
  merchantName: string;
  /** The served path of the merchant's logo (§26.23), or null. */
  logoUrl: string | null;
  role: RoleName;
  requireTwoFactor: boolean;
}

/** The merchants a user belongs to, by name. */
export async function listMembershipsOfUser(db: Db, userId: string): Promise<MembershipWithMerchant[]> {
  const rows = (await db('memberships as ms')
    .join('merchants as m', 'm.id', 'ms.merchant_id')
    .where('ms.user_id', userId)
    .select('ms.merchant_id', 'm.name', 'm.icon_url', 'ms.role', 'm.require_two_factor')
    .orderBy([
      { column: 'm.name', order: 'asc' },
      { column: 'ms.merchant_id', order: 'asc' },
    ])) as {
    merchant_id: string;
    name: string;
    icon_url: string | null;
    role: RoleName;
    require_two_factor: boolean | number;
  }[];
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    merchantName: r.name,
    logoUrl: servedLogo(r.icon_url),
    role: r.role,
    requireTwoFactor: r.require_two_factor === true || r.require_two_factor === 1,
  }));
}

/** Whether any merchant the user belongs to requires two-factor authentication of its team. */
export async function userHasTeamRequiringTwoFactor(db: Db, userId: string): Promise<boolean> {
  const row = (await db('memberships as ms')
    .join('merchants as m', 'm.id', 'ms.merchant_id')
    .where('ms.user_id', userId)
    .andWhere('m.require_two_factor', true)
    .first('ms.merchant_id')) as { merchant_id: string } | undefined;
  return row !== undefined;
}

/** Replaces a user's recovery codes (SHA-256 hashes) with new ones. */
export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[]): Promise<void> {
  await db('recovery_codes').where({ user_id: userId }).delete();
  if (hashes.length > 0) {
    await db('recovery_codes').insert(hashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null })));
  }
}

/** Marks an unused recovery code used; true when this call did (a code works once, even under a race). */
export async function useRecoveryCode(db: Db, userId: string, hash: string, at: number): Promise<boolean> {
  const changed = await db('recovery_codes')
    .where({ user_id: userId, code_hash: hash })
    .whereNull('used_at')
    .update({ used_at: at });
  return changed === 1;
}

export async function deleteRecoveryCodes(db: Db, userId: string): Promise<void> {
  await db('recovery_codes').where({ user_id: userId }).delete();
}
