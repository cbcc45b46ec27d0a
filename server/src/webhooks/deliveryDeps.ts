import type { SecretBox } from '../crypto/secretBox.js';
import type { Observer } from '../observability/observer.js';
import type { LifecycleDeps } from '../payments/lifecycle.js';
import type { DeliveryParts } from './deliveryParts.js';

export interface WebhookOptions {
  attemptTimeoutMs: number;
  /** How long a claimed attempt is held before the sweeper may give it to another worker (schedule.ts, Leases). */
  leaseMs: number;
  /** How often a worker renews the lease of an attempt in flight; well under `leaseMs`. */
  renewIntervalMs: number;
  /** How often each process looks for passed leases (a dead worker's attempts) and hands them on. */
  leaseSweepIntervalMs: number;
  /** Injected in tests to resolve names without DNS. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export interface WebhookDeps extends LifecycleDeps {
  config: { webhookAllowLoopback: boolean };
  secretBox: SecretBox;
  webhookOptions: WebhookOptions;
  /** What this runtime keeps between attempts (deliveryParts.ts). */
  deliveryParts: DeliveryParts;
  observer?: Pick<Observer, 'paymentTransition' | 'webhookAttempt' | 'webhookDelivered'>;
  /** Aborted when a shutdown's deadline passes: an attempt in flight ends and is recorded as failed. */
  shutdownSignal?: AbortSignal;
}
