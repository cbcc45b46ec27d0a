/**
 * The hosted checkout calls the gateway API like any wallet app, with a public app id (docs/decisions.md, "The hosted
 * checkout"). Its id is derived from the option secret, so every API process of a deployment computes the same one
 * without storing it in clear; like every key, the database holds only its hash. The row is created on first use;
 * an operator who revokes it turns the hosted checkout off (it then answers invalid_app_id), which is logged.
 * Rotating the option secret gives a new app id (a new row on first use) while pages loaded before keep the old
 * one, which stays valid; a revocation of the app id of a secret still listed as previous keeps the checkout off,
 * so a rotation never turns it back on by itself (docs/decisions.md §29.15).
 */
import { createHmac } from 'node:crypto';
import { DISPLAY_PREFIX_LENGTH, hashKey, type Mode } from '../accounts/keys.js';
import { findActiveKeyByHash, insertApiKey, isKeyRevokedByHash } from '../db/queries/accounts.js';
import type { Database } from '../db/connect.js';
import { isUniqueViolation } from '../db/failure.js';
import { CURRENT_VERSION } from '../versions.js';
import { newId } from '../ids.js';

export const HOSTED_CHECKOUT_LABEL = 'Paygate hosted checkout';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `app_<mode>_` and 24 base62 characters of an HMAC: the format of every app id, so nothing treats it specially. */
export function hostedCheckoutAppId(optionSecret: Buffer, mode: Mode): string {
  const mac = createHmac('sha256', optionSecret).update(`paygate/hosted-checkout-app/${mode}`).digest();
  // 32 bytes give 24 characters with at most a 0.8 % bias per character (256 mod 62): an id, not a secret.
  const body = Array.from(mac.subarray(0, 24), (byte) => BASE62[byte % 62]).join('');
  return `app_${mode}_${body}`;
}

export interface HostedCheckoutApps {
  /** The mode's app id, its key row created if missing; null when an operator revoked it. */
  appIdFor(mode: Mode): Promise<string | null>;
}

export function hostedCheckoutApps(deps: {
  db: Database;
  optionSecret: Buffer;
  /** Secrets a rotation retired: their app ids' revocations still count. */
  previousOptionSecrets?: readonly Buffer[];
  now: () => number;
  onRevoked: (mode: Mode) => void;
}): HostedCheckoutApps {
  const ready = new Map<Mode, Promise<string | null>>();
  const ensure = async (mode: Mode): Promise<string | null> => {
    const appId = hostedCheckoutAppId(deps.optionSecret, mode);
    const hash = hashKey(appId);
    if (await findActiveKeyByHash(deps.db.knex, hash)) return appId;
    for (const previous of deps.previousOptionSecrets ?? []) {
      if (await isKeyRevokedByHash(deps.db.knex, hashKey(hostedCheckoutAppId(previous, mode)))) {
        deps.onRevoked(mode);
        return null;
      }
    }
    try {
      await insertApiKey(deps.db.knex, {
        id: newId.key(),
        kind: 'app',
        mode,
        partner_id: null,
        label: HOSTED_CHECKOUT_LABEL,
        can_refund: false,
        prefix: appId.slice(0, DISPLAY_PREFIX_LENGTH),
        hash,
        pinned_version: CURRENT_VERSION,
        created_at: deps.now(),
        revoked_at: null,
        merchant_id: null,
        last_used_at: null,
      });
      return appId;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Another process created it meanwhile, or the row exists revoked.
      if (await findActiveKeyByHash(deps.db.knex, hash)) return appId;
      deps.onRevoked(mode);
      return null;
    }
  };
  return {
    appIdFor(mode) {
      let pending = ready.get(mode);
      if (!pending) {
        pending = ensure(mode);
        // A failure (the database was down) is retried by the next page load; a success is remembered.
        pending.then(
          (id) => id === null && ready.delete(mode),
          () => ready.delete(mode),
        );
        ready.set(mode, pending);
      }
      return pending;
    },
  };
}
