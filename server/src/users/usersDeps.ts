import type { Config } from '../config.js';
import type { SecretBox } from '../crypto/secretBox.js';
import type { Database } from '../db/connect.js';
import type { ServerKeys } from './serverKeys.js';

/** What the users module needs; a Runtime satisfies it, and so does the CLI's smaller set. */
export interface UsersDeps {
  db: Database;
  now: () => number;
  secretBox: SecretBox;
  /** Keys derived from the first encryption key (serverKeys.ts). */
  serverKeys: ServerKeys;
  config: Pick<Config, 'dashboard'> & { encryptionKeys: { id: string; key: Buffer }[] };
}
