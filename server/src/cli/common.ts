import type { KeyInfo } from '../accounts/apiKeys.js';
import type { AccountsDeps } from '../accounts/accountsDeps.js';
import { loadConfig, withDevelopmentSecrets, type Config } from '../config.js';
import { SecretBox } from '../crypto/secretBox.js';
import { openDatabase } from '../db/connect.js';
import { migrateDatabase } from '../db/migrate.js';
import type { MerchantRow, PartnerRow } from '../db/queries/accounts.js';
import type { DemoLogin } from '../users/demoLogin.js';
import { ServerKeys } from '../users/serverKeys.js';
import type { UsersDeps } from '../users/usersDeps.js';

/** Where a command writes, and the environment it reads instead of the process's own. */
export interface CliIo {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Where a command reads a secret it is not given in a file (the process's stdin when absent). */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
}

/** A stream, or anything that collects what a command writes (tests). */
export interface Output {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * What `start` and `worker` return once they serve: they run until the process gets a signal, and their shutdown
 * (server.ts, worker.ts) ends the process, so only the bin runs them.
 */
export const RUNNING = 'running';

/** The configuration the given environment describes. */
export function loadCliConfig(io: CliIo): Config {
  return loadConfig(io.env, { stdoutIsTTY: io.stdout.isTTY === true });
}

/** A mistake in how the command was typed: exit code 2, as opposed to 1 for a refused operation. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly help: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The options every command takes. */
export const commonOptions = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** With `--json` the whole answer is one JSON document, so scripts can parse stdout without scraping text. */
export function emit(io: CliIo, json: boolean, data: unknown, human: string): void {
  io.stdout.write(json ? JSON.stringify(data) + '\n' : human.endsWith('\n') ? human : human + '\n');
}

/**
 * Opens the database `DATABASE_URL` names, brings its schema up to date and always closes the pool, so a one-shot
 * command exits as soon as its work is done.
 */
export async function withAccounts<T>(io: CliIo, work: (deps: AccountsDeps) => Promise<T>): Promise<T> {
  const config = loadCliConfig(io);
  const db = openDatabase(config.databaseUrl, { poolMax: 2 });
  try {
    await migrateDatabase(db);
    return await work({ db, now: Date.now });
  } finally {
    await db.close();
  }
}

/** withAccounts, plus what the users module needs: the encryption keys (emails are sealed) and the config. */
export async function withUsers<T>(io: CliIo, work: (deps: UsersDeps) => Promise<T>): Promise<T> {
  const config = withDevelopmentSecrets(loadCliConfig(io));
  const db = openDatabase(config.databaseUrl, { poolMax: 2 });
  try {
    await migrateDatabase(db);
    return await work({
      db,
      now: Date.now,
      secretBox: new SecretBox(config.encryptionKeys),
      serverKeys: new ServerKeys(config.encryptionKeys),
      config,
    });
  } finally {
    await db.close();
  }
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function partnerJson(p: PartnerRow) {
  return { id: p.id, name: p.name, createdAt: iso(p.created_at) };
}

export function merchantJson(m: MerchantRow) {
  return {
    id: m.id,
    partnerId: m.partner_id,
    name: m.name,
    iconUrl: m.icon_url,
    feeConfig: m.fee_config,
    settlementAddresses: m.settlement_addresses,
    createdAt: iso(m.created_at),
  };
}

export function keyJson(k: KeyInfo) {
  return {
    id: k.id,
    kind: k.kind,
    mode: k.mode,
    prefix: k.prefix,
    partnerId: k.partner_id,
    label: k.label,
    pinnedVersion: k.pinned_version,
    createdAt: iso(k.created_at),
    revokedAt: iso(k.revoked_at),
  };
}

/** Left-aligned columns for terminal tables. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The demo dashboard login's lines: the password only when this command just made it. */
export function demoLoginText(login: DemoLogin, pad = '  Dashboard login      '): string {
  const password = login.password ?? '(the user existed already: password unchanged)';
  return `${pad}${login.email}\n${' '.repeat(pad.length)}${password}\n`;
}
