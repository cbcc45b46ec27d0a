/**
 * The merchant's logo, uploaded to and served by Paygate (docs/decisions.md §26.23). The settings' `iconUrl` is the
 * path the logo is served at, `/logos/<sha256>.<ext>`: on the checkout's own origin (its CSP loads no other), and
 * named by the bytes, so a new logo is a new URL and an answer may be cached for good.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { findMerchant, updateMerchant } from '../db/queries/accounts.js';
import { deleteLogo, findLogoByHash, LOGO_PATH_PREFIX, upsertLogo } from '../db/queries/logos.js';
import { ApiError } from '../errors.js';
import type { AccountsDeps } from './accountsDeps.js';
import { credentialRevoked } from './credentialCache.js';
import { cleanLogo, LOGO_EXTENSION, type LogoType } from './logoImage.js';
import { getMerchantSettings, type MerchantSettings } from './merchants.js';

/** Stores the logo given as base64 (the contract's `image`) and answers the settings with its new `iconUrl`. */
export async function setMerchantLogo(
  deps: AccountsDeps,
  merchantId: string,
  base64: string,
): Promise<MerchantSettings> {
  // Buffer.from skips what is not base64; a strict check keeps a pasted data: URL or text from becoming bytes.
  const compact = base64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw new ApiError('params_validation', 'image must be the file’s bytes in base64.', { param: 'image' });
  }
  const image = cleanLogo(Buffer.from(compact, 'base64'));
  const sha256 = createHash('sha256').update(image.bytes).digest('hex');
  await deps.db.knex.transaction(async (trx) => {
    await requireMerchantIn(trx, merchantId);
    await upsertLogo(trx, {
      merchant_id: merchantId,
      sha256,
      content_type: image.type,
      width: image.width,
      height: image.height,
      bytes: image.bytes,
      created_at: deps.now(),
    });
    await updateMerchant(trx, merchantId, { icon_url: `${LOGO_PATH_PREFIX}${sha256}.${LOGO_EXTENSION[image.type]}` });
  });
  // The credential cache holds merchant rows (accounts/merchants.ts updateMerchantSettings).
  credentialRevoked();
  return getMerchantSettings(deps, merchantId);
}

export async function removeMerchantLogo(deps: AccountsDeps, merchantId: string): Promise<MerchantSettings> {
  await deps.db.knex.transaction(async (trx) => {
    await requireMerchantIn(trx, merchantId);
    await deleteLogo(trx, merchantId);
    await updateMerchant(trx, merchantId, { icon_url: null });
  });
  credentialRevoked();
  return getMerchantSettings(deps, merchantId);
}

/** The bytes at `/logos/<sha256>.<ext>`, or null when no logo has them or the extension is not their type's. */
export async function readLogo(deps: AccountsDeps, file: string): Promise<{ type: LogoType; bytes: Buffer } | null> {
  const m = /^([0-9a-f]{64})\.(png|jpg|webp)$/.exec(file);
  if (!m) return null;
  const row = await findLogoByHash(deps.db.knex, m[1]!);
  if (!row || LOGO_EXTENSION[row.content_type as LogoType] !== m[2]) return null;
  return { type: row.content_type as LogoType, bytes: row.bytes };
}

/** Before a logo row is written, so none names a missing merchant. */
async function requireMerchantIn(trx: Knex.Transaction, merchantId: string): Promise<void> {
  if (!(await findMerchant(trx, merchantId))) {
    throw new ApiError('merchant_not_found', `No merchant with id ${merchantId}.`);
  }
}
