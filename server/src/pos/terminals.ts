/**
 * Point-of-sale terminals (docs/decisions.md §30.13): made, listed and revoked in the dashboard. A terminal's POS
 * access key exists in memory only while it is minted and returned once; the database keeps its SHA-256 and a
 * display prefix, as for API keys (§4).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Database } from '../db/connect.js';
import {
  findPosTerminal,
  insertPosTerminal,
  listPosTerminalRows,
  markPosTerminalRevoked,
  type PosTerminalRow,
} from '../db/queries/posTerminals.js';
import { findMerchant } from '../db/queries/accounts.js';
import { findCurrency } from '../currencies.js';
import { ApiError } from '../errors.js';
import type { components } from '../generated/dashboard.js';
import { newId, randomBase62 } from '../ids.js';

export interface PosDeps {
  db: Database;
  now: () => number;
}

type Mode = 'test' | 'live';
export type PosTerminalInfo = components['schemas']['PosTerminalInfo'];
type CreateRequest = components['schemas']['CreatePosTerminalRequest'];

const KEY = /^posk_(test|live)_[0-9A-Za-z]{32}$/;
const PREFIX_LENGTH = 14;

const sha256 = (secret: string) => createHash('sha256').update(secret).digest();

/** The catalogue's item ids are their places in the list: stable because a catalogue is never edited in place. */
export const itemId = (index: number) => `item_${index + 1}`;

export function terminalInfo(row: PosTerminalRow): PosTerminalInfo {
  return {
    id: row.id,
    name: row.name,
    mode: row.live ? 'live' : 'test',
    currency: `iso4217/${row.currency}`,
    keyPrefix: row.key_prefix,
    catalogue: row.catalogue.map((item, i) => ({ id: itemId(i), name: item.name, unitAmount: item.unitAmount })),
    tipPercents: row.tip_percents,
    createdAt: Math.floor(row.created_at / 1000),
    revokedAt: row.revoked_at === null ? null : Math.floor(row.revoked_at / 1000),
  };
}

function invalid(message: string, param: string): ApiError {
  return new ApiError('params_validation', message, { param });
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function cleanName(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > max || CONTROL.test(trimmed)) {
    throw invalid(`${field} must be 1–${max} characters without control characters.`, field);
  }
  return trimmed;
}

export async function createPosTerminal(
  deps: PosDeps,
  merchantId: string,
  mode: Mode,
  input: CreateRequest,
): Promise<{ terminal: PosTerminalInfo; key: string }> {
  const currency = findCurrency(input.currency);
  if (!currency) throw invalid(`currency ${input.currency} is not an active ISO 4217 currency.`, 'currency');
  const catalogue = (input.catalogue ?? []).map((item) => ({
    name: cleanName(item.name, 'catalogue.name', 200),
    unitAmount: item.unitAmount,
  }));
  const tips = input.tipPercents ?? [];
  if (new Set(tips).size !== tips.length) throw invalid('tipPercents must be distinct.', 'tipPercents');
  const key = `posk_${mode}_${randomBase62(32)}`;
  const row: PosTerminalRow = {
    id: newId.pos(),
    merchant_id: merchantId,
    live: mode === 'live',
    name: cleanName(input.name, 'name', 100),
    currency: currency.code,
    key_prefix: key.slice(0, PREFIX_LENGTH),
    key_hash: sha256(key).toString('hex'),
    catalogue,
    tip_percents: [...tips].sort((a, b) => a - b),
    created_at: deps.now(),
    revoked_at: null,
  };
  await insertPosTerminal(deps.db.knex, row);
  return { terminal: terminalInfo(row), key };
}

export async function listPosTerminals(deps: PosDeps, merchantId: string, mode: Mode): Promise<PosTerminalInfo[]> {
  return (await listPosTerminalRows(deps.db.knex, merchantId, mode === 'live')).map(terminalInfo);
}

export async function revokePosTerminal(
  deps: PosDeps,
  merchantId: string,
  mode: Mode,
  posId: string,
): Promise<PosTerminalInfo> {
  const row = await findPosTerminal(deps.db.knex, posId);
  // Another merchant's terminal, or one of the other mode, is answered like an unknown id.
  if (!row || row.merchant_id !== merchantId || row.live !== (mode === 'live')) {
    throw new ApiError('invalid_params', `No point-of-sale terminal ${posId}.`, { status: 404 });
  }
  const at = deps.now();
  if (!(await markPosTerminalRevoked(deps.db.knex, posId, at))) {
    throw new ApiError('invalid_state', `Point-of-sale terminal ${posId} is already revoked.`);
  }
  return terminalInfo({ ...row, revoked_at: at });
}

/** The terminal and its merchant's name and served logo, when `secret` is its active key; null for anything else. */
export async function authenticatePosKey(
  db: Database,
  posId: string,
  secret: string,
): Promise<{ terminal: PosTerminalRow; merchantName: string; merchantLogoUrl: string | null } | null> {
  // The format first, so garbage never reaches the database.
  if (!KEY.test(secret)) return null;
  const terminal = await findPosTerminal(db.knex, posId);
  if (!terminal || terminal.revoked_at !== null) return null;
  // Constant-time, so the answer's timing says nothing about how much of a guessed key's hash matched.
  const stored = Buffer.from(terminal.key_hash, 'hex');
  const given = sha256(secret);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  if (secret.startsWith('posk_live_') !== terminal.live) return null;
  const merchant = await findMerchant(db.knex, terminal.merchant_id);
  if (!merchant) return null;
  return { terminal, merchantName: merchant.name, merchantLogoUrl: merchant.icon_url };
}
