/**
 * Frees the jobs of job runners whose process died (SIGKILL, OOM, power loss) within seconds, where graphile-worker
 * waits 4 hours (docs/decisions.md §27.25). A live process holds, on one dedicated connection, a session-level
 * advisory lock for each id its workers lock jobs with; PostgreSQL drops those locks when the session ends, so an id
 * whose lock anyone can take has no live owner. A sweep lists the ids holding jobs for longer than a grace and frees,
 * with `force_unlock_workers`, those whose lock it can take.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { openJobSession, type JobSession } from '../db/jobPool.js';

/** The first key of every liveness lock (two-key form), so that they cannot meet the application's other locks. */
export const LOCKER_LOCK_CLASS = 0x70677721;

/** The liveness connection's `application_name`, so an operator finds it in `pg_stat_activity`. */
export const LIVENESS_APPLICATION = 'paygate-jobs-liveness';

export const DEFAULT_SWEEP_MS = 15_000;
export const DEFAULT_GRACE_MS = 30_000;
/** How soon a lost liveness connection is opened again. */
const RECONNECT_MS = 1000;

export interface LockerLivenessOptions {
  /** How often the sweep runs (it runs at start too). */
  sweepMs?: number;
  /**
   * Only lockers holding a job for longer than this are checked, and no sweep runs while PostgreSQL has been up for
   * less: a live process takes its lock within milliseconds of creating an id, and again within RECONNECT_MS of a
   * PostgreSQL restart, both well inside it.
   */
  graceMs?: number;
}

export interface LockerLiveness {
  /** Opens the liveness connection and starts the sweep. */
  start(): Promise<void>;
  /** Declares an id this process's workers lock jobs with; its lock is taken at once (and again after a reconnect). */
  hold(id: string): void;
  /** Ids whose runner has ended (nothing of it runs): their locks are given up. */
  release(ids: readonly string[]): void;
  /** One sweep; answers the ids freed. */
  sweep(): Promise<string[]>;
  stop(): Promise<void>;
}

export function createLockerLiveness(
  options: LockerLivenessOptions & { url: string; knex: Knex; logger: Logger },
): LockerLiveness {
  const { url, knex, logger } = options;
  const sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS;
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  /** Every id declared and not released; `locked` those whose lock the current connection holds. */
  const held = new Set<string>();
  const locked = new Set<string>();
  let client: JobSession | null = null;
  let connecting: Promise<void> | null = null;
  let stopped = true;
  let sweepTimer: NodeJS.Timeout | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;

  // pg_try_advisory_lock, not pg_advisory_lock: a hash collision with a live process's id would block the connection
  // for good. A failed try (that process, or a sweep holding the key for an instant) is tried again on the next tick;
  // meanwhile the key is held by someone, so a sweep sees the id as alive.
  const takeLocksNow = async (): Promise<void> => {
    const c = client;
    if (!c) return;
    for (const id of held) {
      if (locked.has(id)) continue;
      const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
        LOCKER_LOCK_CLASS,
        id,
      ]);
      if (c !== client) return;
      if (rows[0]?.ok) locked.add(id);
    }
  };
  // One at a time: the same session taking a key twice holds it twice, and one unlock would not give it up.
  let taking: Promise<void> = Promise.resolve();
  const takeLocks = (): Promise<void> => (taking = taking.catch(() => undefined).then(takeLocksNow));

  const lost = (c: JobSession) => (err?: Error) => {
    if (c !== client) return;
    client = null;
    locked.clear();
    if (stopped) return;
    logger.warn({ err, component: 'graphile-worker' }, 'the job liveness connection was lost; opening it again');
    scheduleReconnect();
  };
  const scheduleReconnect = () => {
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect().catch(() => scheduleReconnect());
    }, RECONNECT_MS);
  };
  const connect = (): Promise<void> =>
    (connecting ??= (async () => {
      const c = openJobSession(url, LIVENESS_APPLICATION);
      c.on('error', lost(c));
      c.on('end', lost(c));
      await c.connect();
      client = c;
      await takeLocks();
    })().finally(() => (connecting = null)));

  const candidates = async (): Promise<string[]> => {
    const { rows } = (await knex.raw(
      `SELECT locked_by FROM graphile_worker._private_jobs
        WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => ?)
       UNION
       SELECT locked_by FROM graphile_worker._private_job_queues
        WHERE locked_by IS NOT NULL AND locked_at < now() - make_interval(secs => ?)`,
      [graceMs / 1000, graceMs / 1000],
    )) as { rows: { locked_by: string }[] };
    return rows.map((r) => r.locked_by);
  };

  const liveness: LockerLiveness = {
    async start() {
      stopped = false;
      await connect();
      const tick = () => {
        sweepTimer = setTimeout(() => {
          sweeping = liveness
            .sweep()
            .catch((err: unknown) => logger.warn({ err }, 'could not check the job lockers'))
            .finally(() => !stopped && tick());
        }, sweepMs);
      };
      await liveness.sweep().catch((err: unknown) => logger.warn({ err }, 'could not check the job lockers'));
      tick();
    },
    hold(id) {
      held.add(id);
      if (!client) return;
      takeLocks().catch(() => undefined);
    },
    release(ids) {
      const c = client;
      for (const id of ids) {
        held.delete(id);
        if (!locked.delete(id) || !c) continue;
        c.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCKER_LOCK_CLASS, id]).catch(() => undefined);
      }
    },
    async sweep() {
      if (!client) {
        scheduleReconnect();
        return [];
      }
      await takeLocks();
      // After a PostgreSQL restart every process's locks are gone until it takes them again: wait the grace out.
      const { rows: up } = (await knex.raw(
        'SELECT now() - pg_postmaster_start_time() > make_interval(secs => ?) AS settled',
        [graceMs / 1000],
      )) as { rows: { settled: boolean }[] };
      if (!up[0]?.settled) return [];
      const ids = (await candidates()).filter((id) => !held.has(id));
      const freed: string[] = [];
      for (const id of ids) {
        // The transaction-level form: the key is released with the transaction, so a sweep never holds an id's lock.
        // Taken, it proves no live session holds it; a collision can only make a dead id look alive (the safe side).
        await knex.transaction(async (trx) => {
          const { rows } = (await trx.raw('SELECT pg_try_advisory_xact_lock(?, hashtext(?)) AS dead', [
            LOCKER_LOCK_CLASS,
            id,
          ])) as { rows: { dead: boolean }[] };
          if (!rows[0]?.dead) return;
          await trx.raw('SELECT graphile_worker.force_unlock_workers(?::text[])', [[id]]);
          freed.push(id);
        });
      }
      logger.debug({ checked: ids.length, freed: freed.length }, 'job lockers checked');
      if (freed.length > 0) logger.warn({ lockers: freed }, 'freed the jobs of job runners whose process is gone');
      return freed;
    },
    async stop() {
      stopped = true;
      if (sweepTimer) clearTimeout(sweepTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      sweepTimer = reconnectTimer = null;
      await sweeping;
      await connecting?.catch(() => undefined);
      const c = client;
      client = null;
      locked.clear();
      held.clear();
      await c?.end().catch(() => undefined);
    },
  };
  return liveness;
}
