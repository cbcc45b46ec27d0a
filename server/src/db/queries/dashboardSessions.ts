/** Server-side dashboard sessions (migration 006): the cookie holds a token, the table its SHA-256. */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface SessionRow {
  id: string;
  token_hash: string;
  user_id: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  ip_sealed: string | null;
  user_agent_sealed: string | null;
  revoked_at: number | null;
}

function fromRaw(raw: SessionRow): SessionRow {
  return {
    ...raw,
    created_at: Number(raw.created_at),
    last_seen_at: Number(raw.last_seen_at),
    expires_at: Number(raw.expires_at),
    revoked_at: raw.revoked_at === null ? null : Number(raw.revoked_at),
  };
}

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db('dashboard_sessions').insert(row);
}

export async function findSessionByTokenHash(db: Db, tokenHash: string): Promise<SessionRow | null> {
  const raw = (await db('dashboard_sessions').where({ token_hash: tokenHash }).first()) as SessionRow | undefined;
  return raw ? fromRaw(raw) : null;
}

/** Records a use; only forward, so two processes touching at once leave the later time. */
export async function touchSession(db: Db, id: string, at: number): Promise<void> {
  await db('dashboard_sessions').where({ id }).andWhere('last_seen_at', '<', at).update({ last_seen_at: at });
}

/** Revokes one of a user's sessions; true when it existed, belonged to the user and was active. */
export async function revokeSessionOfUser(db: Db, userId: string, id: string, at: number): Promise<boolean> {
  const changed = await db('dashboard_sessions')
    .where({ id, user_id: userId })
    .whereNull('revoked_at')
    .update({ revoked_at: at });
  return changed === 1;
}

/** Ends every active session of a user but one (null: all), e.g. after a password or second-factor change. */
export async function revokeSessionsOfUser(db: Db, userId: string, at: number, except: string | null): Promise<void> {
  const q = db('dashboard_sessions').where({ user_id: userId }).whereNull('revoked_at');
  if (except !== null) q.whereNot({ id: except });
  await q.update({ revoked_at: at });
}

/** The user's sessions that are neither revoked nor past their absolute expiry, newest first. */
export async function listOpenSessions(db: Db, userId: string, now: number): Promise<SessionRow[]> {
  const rows = (await db('dashboard_sessions')
    .where({ user_id: userId })
    .whereNull('revoked_at')
    .andWhere('expires_at', '>', now)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])) as SessionRow[];
  return rows.map(fromRaw);
}
