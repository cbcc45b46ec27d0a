/**
 * Invitations: an owner creates a one-time link for a role, hands it over (no mail server), and whoever opens it
 * first joins with a new account or an existing one. The token is 32 random bytes (base64url), stored as its
 * SHA-256 only, valid 72 hours, used up by the first acceptance; it travels in the link's fragment and in request
 * bodies, never in a URL a server sees, and is never logged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { recordAudit } from '../audit/auditLog.js';
import { isUniqueViolation } from '../db/failure.js';
import {
  consumeInvitation,
  findMember,
  findMerchantName,
  findOpenInvitationByTokenHash,
  insertInvitation,
  insertMembership,
  revokeOpenInvitation,
  type InvitationRow,
  type MemberRole,
} from '../db/queries/teamRows.js';
import { releaseAttempt, reserveAttempt, type ThrottleRule } from '../db/queries/throttleCounts.js';
import { insertUser, type UserRow } from '../db/queries/users.js';
import { ApiError } from '../errors.js';
import type { operations } from '../generated/dashboard.js';
import { newId, randomBase62 } from '../ids.js';
import type { Config } from '../config.js';
import type { SignInGate } from '../users/signInGate.js';
import type { UsersDeps } from '../users/usersDeps.js';
import { checkNewPassword, hashPassword } from '../users/passwords.js';
import { throttleKeys, type AttemptOutcome } from '../users/loginThrottle.js';
import { emailHashOf, findUserByEmail, normaliseEmail } from '../users/userAccounts.js';

/** What invitations need: the users' deps, the password-check bound, and the public address their links name. */
export interface InvitationDeps extends UsersDeps {
  config: UsersDeps['config'] & Pick<Config, 'publicBaseUrl'>;
  signInGate: SignInGate;
}
// Typed through the operations, whose ids every version of the contract shares, not through schema names.
export type TeamInvitation =
  operations['createInvitation']['responses'][201]['content']['application/json']['invitation'];
export type InvitationPreview = operations['lookupInvitation']['responses'][200]['content']['application/json'];

export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
/** Wrong passwords for an existing account on one invitation before the invitation is revoked. */
export const MAX_WRONG_PASSWORDS = 5;

const seconds = (ms: number) => Math.floor(ms / 1000);
const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export function invitationJson(row: InvitationRow): TeamInvitation {
  return { id: row.id, role: row.role, createdAt: seconds(row.created_at), expiresAt: seconds(row.expires_at) };
}

/** Creates an invitation of the merchant for a role; the link (with its token) is returned here only. */
export async function createInvitation(
  deps: InvitationDeps,
  merchantId: string,
  createdBy: string,
  role: MemberRole,
): Promise<{ invitation: TeamInvitation; inviteUrl: string }> {
  const token = randomBytes(32).toString('base64url');
  const now = deps.now();
  const row: InvitationRow = {
    id: `inv_${randomBase62(16)}`,
    merchant_id: merchantId,
    role,
    token_hash: hashToken(token),
    created_by: createdBy,
    created_at: now,
    expires_at: now + INVITATION_TTL_MS,
    accepted_at: null,
    accepted_by: null,
    revoked_at: null,
  };
  await insertInvitation(deps.db.knex, row);
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');
  return { invitation: invitationJson(row), inviteUrl: `${base}/dashboard/invite#${token}` };
}

export async function revokeInvitation(deps: InvitationDeps, merchantId: string, invitationId: string): Promise<void> {
  if (!(await revokeOpenInvitation(deps.db.knex, merchantId, invitationId, deps.now()))) {
    throw new ApiError('invalid_params', `No open invitation ${invitationId} in this merchant.`, { status: 404 });
  }
}

const linkInvalid = () =>
  new ApiError(
    'invalid_params',
    'This invitation link is not valid. It may have expired, been used or been revoked; ask for a new one.',
    { status: 404 },
  );

async function requireOpen(deps: InvitationDeps, token: string): Promise<InvitationRow> {
  const invitation = await findOpenInvitationByTokenHash(deps.db.knex, hashToken(token), deps.now());
  if (!invitation) throw linkInvalid();
  return invitation;
}

export async function lookupInvitation(deps: InvitationDeps, token: string): Promise<InvitationPreview> {
  const invitation = await requireOpen(deps, token);
  const merchantName = await findMerchantName(deps.db.knex, invitation.merchant_id);
  if (merchantName === null) throw linkInvalid();
  return { merchantName, role: invitation.role, expiresAt: seconds(invitation.expires_at) };
}

/**
 * The sign-in throttle, applied to the password check of an existing account (users/loginThrottle.ts:
 * `reserveLoginAttempt` and `settleLoginAttempt` over `throttleKeys(runtime, email, ip)`), so an invitation link is
 * no way around the per-account and per-address limits.
 */
export interface PasswordThrottle {
  /** Takes one attempt before the password is checked; throws (429 rate_limited) while the account or address is locked. */
  reserve(): Promise<void>;
  /** How the reserved attempt ended. */
  settle(outcome: AttemptOutcome): Promise<void>;
}

/** Wrong passwords per invitation, counted in login_throttle under the invitation's id, for the link's lifetime. */
const INVITATION_RULE: ThrottleRule = {
  windowMs: INVITATION_TTL_MS,
  limit: MAX_WRONG_PASSWORDS,
  lockMs: INVITATION_TTL_MS,
};

export interface Accepted {
  userId: string;
  merchantId: string;
  merchantName: string;
  role: MemberRole;
  invitationId: string;
  /** A new account was created for the email. */
  newUser: boolean;
  /** The existing account signs in with a second factor: no session may be started from a password alone. */
  twoFactorEnabled: boolean;
}

const alreadyMember = (merchantName: string) =>
  new ApiError('invalid_state', `This account is already a member of ${merchantName}.`);

/**
 * The password of an existing account, under a reserved attempt of the invitation (the one that reaches
 * MAX_WRONG_PASSWORDS and fails revokes it; beyond it the link is refused as revoked) and of the sign-in throttle,
 * both taken before the password is checked so that parallel guesses get no more checks than sequential ones.
 */
async function checkExistingPassword(
  deps: InvitationDeps,
  invitation: InvitationRow,
  existing: UserRow,
  password: string,
  throttle: PasswordThrottle | undefined,
): Promise<void> {
  const key = `invitation:${invitation.id}`;
  // In a transaction, so the number read back is this attempt's own (PostgreSQL holds the row until the commit).
  const attempt = await deps.db.knex.transaction((trx) => reserveAttempt(trx, key, deps.now(), INVITATION_RULE));
  if (attempt === null) throw linkInvalid();
  let outcome: AttemptOutcome = 'released';
  try {
    await throttle?.reserve();
  } catch (err) {
    await releaseAttempt(deps.db.knex, key, INVITATION_RULE);
    throw err;
  }
  try {
    const ok =
      existing.disabled_at === null && (await deps.signInGate.verifyPassword(password, existing.password_hash));
    if (ok) {
      outcome = 'succeeded';
      return;
    }
    outcome = 'failed';
    if (attempt >= MAX_WRONG_PASSWORDS) {
      await revokeOpenInvitation(deps.db.knex, invitation.merchant_id, invitation.id, deps.now());
      throw new ApiError(
        'unauthorized',
        'An account with this email exists and the password is not its password. After too many attempts this ' +
          'invitation link was revoked; ask for a new one.',
      );
    }
    throw new ApiError('unauthorized', 'An account with this email exists and the password is not its password.');
  } finally {
    await throttle?.settle(outcome);
    if (outcome !== 'failed') await releaseAttempt(deps.db.knex, key, INVITATION_RULE);
  }
}

/**
 * Accepts an invitation: creates the account (new email) or checks the existing account's password, then adds the
 * membership and uses the invitation up, in one transaction; then writes the audit row (an open operation has no
 * merchant principal for the central recorder). Starting the session is the caller's.
 */
export async function acceptInvitation(
  deps: InvitationDeps,
  input: { token: string; email: string; password: string; ip?: string | null },
  options: { passwordCost?: number; throttle?: PasswordThrottle } = {},
): Promise<Accepted> {
  const invitation = await requireOpen(deps, input.token);
  const merchantName = (await findMerchantName(deps.db.knex, invitation.merchant_id)) ?? invitation.merchant_id;
  const emailHash = emailHashOf(deps, input.email);
  const existing = await findUserByEmail(deps, input.email);

  let created: UserRow | null = null;
  if (existing) {
    await deps.signInGate.hold(throttleKeys(deps, input.email, null).account, () =>
      checkExistingPassword(deps, invitation, existing, input.password, options.throttle),
    );
  } else {
    checkNewPassword(input.password);
    // The row of users/userAccounts.ts createUser, built here so that it is inserted in the transaction below.
    const id = newId.user();
    created = {
      id,
      email_hash: emailHash,
      email_sealed: deps.secretBox.seal(normaliseEmail(input.email), `users.email_sealed:${id}`),
      password_hash: await hashPassword(input.password, options.passwordCost ?? deps.config.dashboard.passwordCostLog2),
      totp_secret_sealed: null,
      totp_pending_sealed: null,
      totp_enabled_at: null,
      totp_last_step: null,
      created_at: deps.now(),
      disabled_at: null,
    };
  }
  const userId = existing?.id ?? created!.id;

  try {
    await deps.db.knex.transaction(async (trx) => {
      const now = deps.now();
      if (created) await insertUser(trx, created);
      else if (await findMember(trx, invitation.merchant_id, userId)) throw alreadyMember(merchantName);
      // After the reads above: the first acceptance wins; a later one (or one after a revocation) changes nothing.
      if (!(await consumeInvitation(trx, invitation.id, userId, now))) throw linkInvalid();
      await insertMembership(trx, {
        user_id: userId,
        merchant_id: invitation.merchant_id,
        role: invitation.role,
        created_at: now,
      });
    });
  } catch (err) {
    if (err instanceof ApiError || !isUniqueViolation(err)) throw err;
    // Another request created this email's account, or added this membership, meanwhile.
    if (created) {
      throw new ApiError(
        'invalid_state',
        'An account with this email was just created by another request. Accept again with its password.',
      );
    }
    throw alreadyMember(merchantName);
  }

  await recordAudit(deps, {
    merchantId: invitation.merchant_id,
    mode: null,
    actor: { kind: 'user', id: userId },
    action: 'acceptInvitation',
    target: `invitationId=${invitation.id}`,
    details: { role: invitation.role, newAccount: created !== null },
    ip: input.ip ?? null,
  });
  return {
    userId,
    merchantId: invitation.merchant_id,
    merchantName,
    role: invitation.role,
    invitationId: invitation.id,
    newUser: created !== null,
    twoFactorEnabled: existing?.totp_enabled_at != null,
  };
}
