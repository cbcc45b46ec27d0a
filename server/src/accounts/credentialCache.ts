/**
 * A short-lived in-process cache of credentials that authenticated (docs/decisions.md §4), so that a busy key
 * costs no query per request. Keys and merchants change only by a key's revocation or a merchant's settings change
 * (accounts/merchants.ts, `updateMerchantSettings`), so those are the only staleness there is, and it is bounded:
 *
 * - revoked or changed in this process (`revokeKey`, `rotateKey`, `updateMerchantSettings`, the dashboard's key
 *   operations): no cache serves any entry read before the change once the call returns (a process-wide count of
 *   changes, compared with the one an entry was read under);
 * - revoked or changed by another process (the CLI, another instance): refused or refreshed once the entry's TTL has
 *   passed.
 *
 * Only successes are stored. A failed authentication (an unknown, revoked or mismatched credential) reads the
 * database every time, so nothing learnt from a miss can ever let a key in, and a new key works at once.
 */

/** Revocations committed by this process; an entry read before the latest one is never served. */
let revocations = 0;

/** Called once a revocation has committed (the accounts module does); drops every cached credential. */
export function credentialRevoked(): void {
  revocations++;
}

export interface CredentialCacheOptions {
  /** How long an entry is served; 0 turns the cache off. */
  ttlMs: number;
  /** Milliseconds since the epoch (the runtime's clock, so tests move time instead of sleeping). */
  now: () => number;
  /** Hard cap on entries; the oldest go first. */
  maxEntries?: number;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
  revocations: number;
}

/** What `read()` returns: the stored value, or a ticket with which to store what the caller reads instead. */
export type Lookup<T> = { hit: true; value: T } | { hit: false; ticket: number };

export class CredentialCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly maxEntries: number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The fresh entry for `id`; otherwise a ticket to take before reading the database. */
  read(id: string): Lookup<T> {
    const entry = this.entries.get(id);
    if (entry) {
      if (entry.revocations === revocations && entry.expiresAt > this.options.now()) {
        return { hit: true, value: entry.value };
      }
      this.entries.delete(id);
    }
    return { hit: false, ticket: revocations };
  }

  /**
   * Stores a credential that authenticated. A revocation committed since the ticket was taken may be missing from
   * what the caller read, so then the value serves that one request and is not kept.
   */
  store(id: string, value: T, ticket: number): void {
    if (this.options.ttlMs <= 0 || ticket !== revocations) return;
    this.entries.delete(id);
    this.entries.set(id, { value, expiresAt: this.options.now() + this.options.ttlMs, revocations });
    // A Map iterates in insertion order, so the first entries are the oldest.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
