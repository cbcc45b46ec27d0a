import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Database } from '../db/connect.js';
import type { ServerKeys } from './serverKeys.js';

/**
 * A security event of one person (docs/decisions.md §21.1): written to the audit log of every merchant the person
 * belongs to (audit/securityEvents.ts). Never a secret: no code, password or token.
 */
export interface SecurityEvent {
  userId: string;
  action:
    | 'activateTwoFactor'
    | 'disableTwoFactor'
    | 'regenerateRecoveryCodes'
    | 'signInWithRecoveryCode'
    | 'revokeSession'
    | 'signInLocked';
  target: string | null;
  details: Record<string, unknown> | null;
  ip: string | null;
}

/** Records a security event; never throws (a failed write is logged, the change it reports is made). */
export type SecurityEventSink = (event: SecurityEvent) => Promise<void>;

/** What the users module needs; a Runtime satisfies it, and so does the CLI's smaller set. */
export interface UsersDeps {
  db: Database;
  now: () => number;
  secretBox: SecretBox;
  /** Keys derived from the first encryption key (serverKeys.ts). */
  serverKeys: ServerKeys;
  config: Pick<Config, 'dashboard'> & { encryptionKeys: { id: string; key: Buffer }[] };
  /** Where security events go; absent (the CLI's tools) they are not recorded. */
  securityEvents?: SecurityEventSink;
}
