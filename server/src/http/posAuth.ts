/**
 * Authentication of the point-of-sale operations (docs/decisions.md §30.13): the terminal's POS access key in the
 * `Pos-Key` header, checked against the terminal the path names. Called by the gateway's authentication for the
 * operations the contract marks with the `PosKey` scheme, and only for them: every other operation of every API
 * refuses the key, since none of them reads this header.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Response } from 'express';
import type { Database } from '../db/connect.js';
import type { PosTerminalRow } from '../db/queries/posTerminals.js';
import { ApiError } from '../errors.js';
import { authenticatePosKey } from '../pos/terminals.js';
import { asciiHeader } from './merchantAuth.js';

export interface PosAuth {
  terminal: PosTerminalRow;
  merchantName: string;
  /** The merchant's logo as Paygate serves it (`/logos/…`, §26.23), or null. */
  merchantLogoUrl: string | null;
}

declare module 'express-serve-static-core' {
  interface Locals {
    posAuth?: PosAuth;
  }
}

/** The authenticated terminal of a POS route; a route reached without one is a wiring bug, never an open door. */
export function posAuthOf(res: Response): PosAuth {
  const auth = res.locals.posAuth;
  if (!auth) throw new Error('point-of-sale route reached without POS authentication');
  return auth;
}

/** The terminal id of a POS path (`/v1/gateway/pos/{posId}…`); the contract's pattern is checked after auth. */
const POS_PATH = /^\/v1\/gateway\/pos\/([^/]+)/;

export async function authenticatePos(db: Database, path: string, headers: IncomingHttpHeaders): Promise<PosAuth> {
  const secret = asciiHeader(headers, 'Pos-Key');
  if (secret === undefined) throw new ApiError('missing_auth_headers', 'The Pos-Key header is required.');
  const posId = POS_PATH.exec(path)?.[1] ?? '';
  // An unknown terminal answers like a wrong key: the answer never says which terminals exist.
  const found = await authenticatePosKey(db, posId, secret);
  if (!found) throw new ApiError('invalid_api_key', 'The POS access key is invalid or has been revoked.');
  return found;
}
