/**
 * Readiness: what must work before this process should get traffic. The runtime registers the database and
 * migration checks; chain adapters register one per configured chain (an `eth_chainId` or `getHealth` call).
 */
import type { Logger } from 'pino';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency answers; throws (or rejects) when it does not. Should honour `signal`. */
  check(signal: AbortSignal): Promise<void>;
}

export interface CheckStatus {
  status: 'ok' | 'failing';
  ms: number;
}

export interface Readiness {
  ready: boolean;
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
    checks.map(async ({ name, check }): Promise<[string, CheckStatus]> => {
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
        logger.warn({ err, check: name }, 'readiness check failing');
        return [name, { status: 'failing', ms: Math.round(performance.now() - started) }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const statuses = Object.fromEntries(results);
  return { ready: results.every(([, r]) => r.status === 'ok'), checks: statuses };
}
