import type { SecretBox } from '../crypto/secretBox.js';
import type { LifecycleDeps } from '../payments/lifecycle.js';

export interface WebhookOptions {
  attemptTimeoutMs: number;
  /** Injected in tests to resolve names without DNS. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export interface WebhookDeps extends LifecycleDeps {
  config: { webhookAllowLoopback: boolean };
  secretBox: SecretBox;
  webhookOptions: WebhookOptions;
}
