/**
 * Readiness: what must work before this process should get traffic. The runtime registers the database and
 * migration checks; chain adapters register one per configured chain (an `eth_chainId` or `getHealth` call).
 */
import type { Logger } from 'pino';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; throws (or rejects) when it does not. Should honour `signal`. */
  check(signal: AbortSignal): Promise<void>;
  /**
   * A dependency without which this process still serves others (one chain among several): its failure reports the
   * check `degraded` and leaves the process ready, unless it throws `ReadinessFailure` (decisions.md §27.11).
   */
  degradable?: boolean;
}

/** A degradable check's failure that must still take the process out of rotation: a misconfiguration, not an outage. */
export class ReadinessFailure extends Error {}

export interface CheckStatus {
  status: 'ok' | 'degraded' | 'failing';
  ms: number;
}

export interface Readiness {
  ready: boolean;
  /** Ready, with at least one degradable dependency down. */
  degraded: boolean;
  checks: Record<string, CheckStatus>;
}

/** Kubernetes probes give up after 1 s by default; a check that needs longer than this is failing anyway. */
export const CHECK_TIMEOUT_MS = 2000;

/**
 * Runs every check at once, each bounded by `timeoutMs`. Failures are logged with their error; the answer names
 * only which checks failed, because /readyz may be reachable from outside and errors carry internal addresses.
 */
export async function runReadiness(
  checks: readonly ReadinessCheck[],
  logger: Logger,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async ({ name, check, degradable }): Promise<[string, CheckStatus]> => {
      const started = performance.now();
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      });
      try {
        await Promise.race([check(controller.signal), timeout]);
        return [name, { status: 'ok', ms: Math.round(performance.now() - started) }];
      } catch (err) {
        const status = degradable && !(err instanceof ReadinessFailure) ? 'degraded' : 'failing';
        logger.warn({ err, check: name }, `readiness check ${status}`);
        return [name, { status, ms: Math.round(performance.now() - started) }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const statuses = Object.fromEntries(results);
  return {
    ready: results.every(([, r]) => r.status !== 'failing'),
    degraded: results.some(([, r]) => r.status === 'degraded'),
    checks: statuses,
  };
}
