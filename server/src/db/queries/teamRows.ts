/**
 * Users, memberships and invitations as the team operations read and write them (migration 006). Emails are sealed
 * (`email_sealed`) and found by their keyed hash; invitation tokens are stored as their SHA-256 only.
 */
import type { Knex } from 'knex';
import { dialectOf } from '../dialect.js';

type Db = Knex | Knex.Transaction;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export type MemberRole = 'owner' | 'developer' | 'viewer';

export interface MemberRow {
  user_id: string;
  merchant_id: string;
  role: MemberRole;
  created_at: number;
  email_sealed: string;
  totp_enabled_at: number | null;
}

function memberFromRaw(raw: Record<string, unknown>): MemberRow {
  return {
    ...(raw as unknown as MemberRow),
    created_at: Number(raw.created_at),
    totp_enabled_at: num(raw.totp_enabled_at),
  };
}

const memberQuery = (db: Db) =>
  db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .select('m.user_id', 'm.merchant_id', 'm.role', 'm.created_at', 'u.email_sealed', 'u.totp_enabled_at');

/** The merchant's members, oldest first (ties by user id, so the order is stable). */
export async function listMembers(db: Db, merchantId: string): Promise<MemberRow[]> {
  const rows = (await memberQuery(db)
    .where('m.merchant_id', merchantId)
    .orderBy([
      { column: 'm.created_at', order: 'asc' },
      { column: 'm.user_id', order: 'asc' },
    ])) as Record<string, unknown>[];
  return rows.map(memberFromRaw);
}

export async function findMember(db: Db, merchantId: string, userId: string): Promise<MemberRow | null> {
  const raw = await memberQuery(db).where({ 'm.merchant_id': merchantId, 'm.user_id': userId }).first();
  return raw ? memberFromRaw(raw as Record<string, unknown>) : null;
}

export async function insertMembership(
  db: Db,
  row: { user_id: string; merchant_id: string; role: MemberRole; created_at: number },
): Promise<void> {
  await db('memberships').insert(row);
}

export async function updateMembershipRole(db: Db, merchantId: string, userId: string, role: MemberRole) {
  return db('memberships').where({ merchant_id: merchantId, user_id: userId }).update({ role });
}

export async function deleteMembership(db: Db, merchantId: string, userId: string): Promise<number> {
  return db('memberships').where({ merchant_id: merchantId, user_id: userId }).delete();
}

export async function countOwners(db: Db, merchantId: string): Promise<number> {
  const row = (await db('memberships').where({ merchant_id: merchantId, role: 'owner' }).count({ n: '*' }).first()) as
    { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}

/**
 * Serialises the team changes of one merchant until the transaction ends, so two owners demoting each other at once
 * cannot leave it with none: PostgreSQL locks the merchant's row; SQLite has one connection, whose transactions
 * already run one at a time.
 */
export async function lockMerchantTeam(trx: Knex.Transaction, merchantId: string): Promise<void> {
  if (dialectOf(trx) === 'postgres') await trx('merchants').select('id').where({ id: merchantId }).forUpdate();
}

export async function findMerchantName(db: Db, merchantId: string): Promise<string | null> {
  const raw = (await db('merchants').select('name').where({ id: merchantId }).first()) as { name: string } | undefined;
  return raw?.name ?? null;
}

export interface InvitationRow {
  id: string;
  merchant_id: string;
  role: MemberRole;
  token_hash: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
  revoked_at: number | null;
}

function invitationFromRaw(raw: Record<string, unknown>): InvitationRow {
  return {
    ...(raw as unknown as InvitationRow),
    created_at: Number(raw.created_at),
    expires_at: Number(raw.expires_at),
    accepted_at: num(raw.accepted_at),
    revoked_at: num(raw.revoked_at),
  };
}

export async function insertInvitation(db: Db, row: InvitationRow): Promise<void> {
  await db('invitations').insert(row);
}

/** An invitation that can still be used at `now`: not accepted, not revoked, not expired. */
const open = (q: Knex.QueryBuilder, now: number) =>
  q.whereNull('accepted_at').whereNull('revoked_at').andWhere('expires_at', '>', now);

export async function findOpenInvitationByTokenHash(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<InvitationRow | null> {
  const raw = await open(db('invitations').where({ token_hash: tokenHash }), now).first();
  return raw ? invitationFromRaw(raw) : null;
}

/** The merchant's open invitations, newest first. */
export async function listOpenInvitations(db: Db, merchantId: string, now: number): Promise<InvitationRow[]> {
  const rows = (await open(db('invitations').where({ merchant_id: merchantId }), now).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ])) as Record<string, unknown>[];
  return rows.map(invitationFromRaw);
}

/** Revokes an open invitation of the merchant; false when there is none with this id. */
export async function revokeOpenInvitation(db: Db, merchantId: string, id: string, now: number): Promise<boolean> {
  const count = await open(db('invitations').where({ id, merchant_id: merchantId }), now).update({ revoked_at: now });
  return count === 1;
}

/** Uses an open invitation up; false when another acceptance (or a revocation, or the clock) came first. */
export async function consumeInvitation(db: Db, id: string, userId: string, now: number): Promise<boolean> {
  const count = await open(db('invitations').where({ id }), now).update({ accepted_at: now, accepted_by: userId });
  return count === 1;
}
