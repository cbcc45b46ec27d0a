/**
 * A merchant's team: its members and their roles. The merchant always keeps an owner: the last one can be neither
 * demoted nor removed (409 invalid_state), checked under a lock so that two owners demoting each other at once
 * cannot both succeed. Who may call these (owners) is decided centrally (users/roles.ts), not here.
 */
import {
  countOwners,
  deleteMembership,
  findMember,
  listMembers,
  listOpenInvitations,
  lockMerchantTeam,
  updateMembershipRole,
  type MemberRole,
  type MemberRow,
} from '../db/queries/teamRows.js';
import { ApiError } from '../errors.js';
import type { operations } from '../generated/dashboard.js';
import type { UsersDeps } from '../users/usersDeps.js';
import { invitationJson } from './invitations.js';
import { emailOf } from '../users/userAccounts.js';

/** What the team screens need: the users' deps (members' emails are sealed). */
export type TeamDeps = UsersDeps;
// Typed through the operations, whose ids every version of the contract shares, not through schema names.
export type Team = operations['getTeam']['responses'][200]['content']['application/json'];
export type TeamMember = operations['updateMember']['responses'][200]['content']['application/json'];

const seconds = (ms: number) => Math.floor(ms / 1000);

function memberJson(deps: TeamDeps, row: MemberRow): TeamMember {
  return {
    userId: row.user_id,
    email: emailOf(deps, { id: row.user_id, email_sealed: row.email_sealed }),
    role: row.role,
    twoFactorEnabled: row.totp_enabled_at !== null,
    joinedAt: seconds(row.created_at),
  };
}

export async function getTeam(deps: TeamDeps, merchantId: string): Promise<Team> {
  const db = deps.db.knex;
  const [members, invitations] = await Promise.all([
    listMembers(db, merchantId),
    listOpenInvitations(db, merchantId, deps.now()),
  ]);
  return { members: members.map((m) => memberJson(deps, m)), invitations: invitations.map(invitationJson) };
}

const memberNotFound = (userId: string) =>
  new ApiError('invalid_params', `No member ${userId} in this merchant.`, { status: 404 });

const lastOwner = (userId: string, merchantId: string) =>
  new ApiError('invalid_state', `${userId} is the last owner of ${merchantId}. Make another member owner first.`);

/** Gives a member another role; answers the member as changed and their previous role. */
export async function updateMember(
  deps: TeamDeps,
  merchantId: string,
  userId: string,
  role: MemberRole,
): Promise<{ member: TeamMember; previousRole: MemberRole }> {
  return deps.db.knex.transaction(async (trx) => {
    await lockMerchantTeam(trx, merchantId);
    const member = await findMember(trx, merchantId, userId);
    if (!member) throw memberNotFound(userId);
    if (member.role === 'owner' && role !== 'owner' && (await countOwners(trx, merchantId)) <= 1) {
      throw lastOwner(userId, merchantId);
    }
    if (member.role !== role) await updateMembershipRole(trx, merchantId, userId, role);
    return { member: memberJson(deps, { ...member, role }), previousRole: member.role };
  });
}

/** Removes a member's access to the merchant (the account stays); answers the role they had. */
export async function removeMember(
  deps: TeamDeps,
  merchantId: string,
  userId: string,
): Promise<{ previousRole: MemberRole }> {
  return deps.db.knex.transaction(async (trx) => {
    await lockMerchantTeam(trx, merchantId);
    const member = await findMember(trx, merchantId, userId);
    if (!member) throw memberNotFound(userId);
    if (member.role === 'owner' && (await countOwners(trx, merchantId)) <= 1) throw lastOwner(userId, merchantId);
    await deleteMembership(trx, merchantId, userId);
    return { previousRole: member.role };
  });
}
