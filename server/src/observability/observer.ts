/**
 * What the domain reports about itself, with no metrics library in sight: payments, webhooks, jobs and chains
 * call these, and `metrics.ts` turns them into Prometheus series. Tests and tools that want no metrics pass
 * `silentObserver`.
 */

export interface PaymentTransition {
  /** null for a creation. */
  from: string | null;
  to: string;
  live: boolean;
}

/** `refused`: the URL policy blocked the endpoint; `failed`: no 2xx (error status, redirect, timeout, network). */
export type WebhookOutcome = 'delivered' | 'failed' | 'refused';

/** One call to one endpoint of a chain (chains/rpcPool.ts); the endpoint is a label, never its URL (keys). */
export interface RpcCallRecord {
  chain: string;
  endpoint: string;
  method: string;
  outcome: 'ok' | 'timeout' | 'connection' | 'rateLimited' | 'http' | 'malformed' | 'wrongId' | 'rpcError';
  seconds: number;
}

/** One endpoint's health as chains/rpcPool.ts keeps it, for the gauges. */
export interface EndpointHealthReading {
  label: string;
  breaker: 'closed' | 'open' | 'halfOpen';
  consecutiveErrors: number;
  latencyMs: number | null;
  head: bigint | null;
  /** Blocks (or slots) behind the best known head; null while its head is unknown. */
  lag: bigint | null;
  /** Whether a read may be sent to it now. */
  available: boolean;
}

export interface Observer {
  /** Called once the transaction that made the transition has committed. */
  paymentTransition(t: PaymentTransition): void;
  webhookAttempt(a: { outcome: WebhookOutcome; seconds: number }): void;
  /** From the delivery's creation (its event) to the attempt that was accepted. */
  webhookDelivered(a: { seconds: number }): void;
  jobRun(r: { task: string; outcome: 'completed' | 'failed'; seconds: number }): void;
  rpcCall(r: { chain: string; method: string; ok: boolean; seconds: number }): void;
  /** One call to one of a chain's endpoints (chains/rpcPool.ts): its outcome by kind, for per-endpoint health. */
  rpcEndpointCall?(r: RpcCallRecord): void;
  /**
   * Direct settlement found a succeeded payment's transaction gone from its chain before finality (`outcome`
   * `gone`), back again (`reappeared`), or gone for good (`abandoned`: a discrepancy is recorded). A deposit scan
   * found a collected deposit transfer gone before it was final: not yet counted (`depositGone`, it never paid), or
   * already counted (`depositLost`: an `underpayment` discrepancy is recorded).
   */
  settlementReorg?(r: {
    chain: string;
    outcome: 'gone' | 'reappeared' | 'abandoned' | 'depositGone' | 'depositLost';
  }): void;
  /**
   * A settlement move ended `failed` and gave back what it covered (settlement/moves.ts): its transaction reverted
   * whole (`reverted`), or it could not be sent after its attempts (`unsendable`).
   */
  settlementMoveFailed?(r: {
    chain: string;
    kind: 'sweep' | 'payout' | 'refund';
    reason: 'reverted' | 'unsendable';
  }): void;
  /**
   * A sent settlement move whose transaction can no longer land, where the chain's node cannot tell whether it did
   * (its history starts too late, docs/decisions.md §22.16): counted at each look; the move waits and is never
   * signed again. The operator's to resolve (an RPC endpoint with the history).
   */
  settlementMoveUnknown?(r: { chain: string; kind: 'sweep' | 'payout' | 'refund' }): void;
  /**
   * A transfer to a deposit address from a screened account was held (settlement/collected/detection.ts,
   * docs/decisions.md §25.8): counted once, when its `screened_sender` finding is recorded.
   */
  screenedDeposit?(r: { chain: string }): void;
  /**
   * A reconciliation run's outcome (settlement/reconciliation.ts): the accounts compared and their differences.
   * Optional: observers that only time calls (the benchmarks') need not know it.
   */
  reconciled?(r: ReconciliationReport): void;
}

/** What metrics need of a reconciliation run; amounts are minor units, signed (actual − expected). */
export interface ReconciliationReport {
  at: number;
  checked: { chain: string; asset: string; role: string }[];
  differences: { chain: string; asset: string; role: string; difference: bigint; state: 'pending' | 'standing' }[];
}

export const silentObserver: Observer = {
  paymentTransition() {},
  webhookAttempt() {},
  webhookDelivered() {},
  jobRun() {},
  rpcCall() {},
};

/**
 * Times one chain RPC call and counts it as an error when it throws. Chain adapters wrap every call in it, so
 * latency and error rate are per chain and method without each adapter knowing about metrics.
 */
export async function observeRpc<T>(
  observer: Pick<Observer, 'rpcCall'>,
  chain: string,
  method: string,
  call: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    const result = await call();
    observer.rpcCall({ chain, method, ok: true, seconds: (performance.now() - started) / 1000 });
    return result;
  } catch (err) {
    observer.rpcCall({ chain, method, ok: false, seconds: (performance.now() - started) / 1000 });
    throw err;
  }
}
