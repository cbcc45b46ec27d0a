import type { KeyObject } from 'node:crypto';
import {
  decodeBase64,
  decodeUtf8,
  encodeBase64,
  nodeCrypto,
  requireNodeCrypto,
  requireSubtle,
  utf8Encoder,
} from './crypto.js';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { readHeader, type WebhookHeaders } from './headers.js';

export interface WebhookOptions {
  /** Maximum distance between `webhook-timestamp` and now, either direction. Default 300 (the spec's 5 minutes). */
  toleranceSeconds?: number;
  /** Current time in Unix seconds; injectable for tests. Default `Date.now() / 1000`. */
  now?: () => number;
}

/** Raw request body exactly as received: a string (decoded as UTF-8) or bytes. */
export type RawBody = string | Uint8Array;

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
// A `v1` entry is `v1,` and the standard base64 of a 32-byte HMAC-SHA256: 43 characters and one `=`.
const V1_PREFIX = 'v1,';
const V1_ENTRY_LENGTH = 47;
const TIMESTAMP = /^[0-9]{1,15}$/;

interface SignedHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

/**
 * Verifies (and produces) Standard Webhooks signatures as Paygate sends them.
 *
 * Secret rules: a string, surrounding whitespace ignored, optional `whsec_` prefix, then standard base64 (`+/`,
 * padding optional) that decodes to at least one byte. Anything else throws a TypeError here, at construction.
 * Several secrets may be given (e.g. old and new while rotating); a delivery verifies if any of them matches, and
 * `sign` uses the first.
 */
export class Webhook {
  readonly #keys: readonly Uint8Array<ArrayBuffer>[];
  readonly #nodeKeys: readonly KeyObject[] | undefined;
  #subtleKeys: Promise<CryptoKey[]> | undefined;
  readonly #toleranceSeconds: number;
  readonly #now: () => number;

  constructor(secret: string | readonly string[], options: WebhookOptions = {}) {
    const secrets = typeof secret === 'string' ? [secret] : secret;
    if (!Array.isArray(secrets) || secrets.length === 0) {
      throw new TypeError('Webhook secret must be a non-empty string or a non-empty array of strings');
    }
    this.#keys = secrets.map(decodeSecret);
    this.#nodeKeys = nodeCrypto === undefined ? undefined : this.#keys.map((key) => nodeCrypto!.createSecretKey(key));

    const tolerance = options.toleranceSeconds ?? 300;
    if (!Number.isFinite(tolerance) || tolerance < 0) {
      throw new TypeError(`toleranceSeconds must be a finite number >= 0, got ${String(tolerance)}`);
    }
    this.#toleranceSeconds = tolerance;
    this.#now = options.now ?? (() => Date.now() / 1000);
  }

  /**
   * Verifies a delivery and returns the parsed event. Node.js only (uses node:crypto synchronously); see
   * `verifyAsync` for other runtimes. The payload is parsed only after a signature matched; its shape is not
   * validated beyond being a JSON object.
   * @throws WebhookVerificationError
   */
  verify(rawBody: RawBody, headers: WebhookHeaders): WebhookEvent {
    const crypto = requireNodeCrypto();
    const signed = this.#checkHeaders(headers);
    const prefix = `${signed.id}.${signed.timestamp}.`;
    for (const key of this.#nodeKeys!) {
      const mac = crypto.createHmac('sha256', key);
      if (typeof rawBody === 'string') {
        mac.update(prefix + rawBody);
      } else {
        mac.update(prefix);
        mac.update(rawBody);
      }
      if (listsDigest(signed.signature, mac.digest('base64'))) return parsePayload(rawBody);
    }
    throw noMatch();
  }

  /** Same contract as `verify`, through WebCrypto: works on Node.js, Bun, Deno and edge workers. */
  async verifyAsync(rawBody: RawBody, headers: WebhookHeaders): Promise<WebhookEvent> {
    const subtle = requireSubtle();
    const signed = this.#checkHeaders(headers);
    const content = signedContent(`${signed.id}.${signed.timestamp}.`, rawBody);
    for (const key of await this.#getSubtleKeys(subtle)) {
      const digest = encodeBase64(new Uint8Array(await subtle.sign('HMAC', key, content)));
      if (listsDigest(signed.signature, digest)) return parsePayload(rawBody);
    }
    throw noMatch();
  }

  /** Value for `webhook-signature`: `v1,<base64 HMAC-SHA256>` with the first secret. Node.js only; see `signAsync`. */
  sign(id: string, timestamp: number | Date, rawBody: RawBody): string {
    const crypto = requireNodeCrypto();
    const mac = crypto.createHmac('sha256', this.#nodeKeys![0]!);
    mac.update(`${id}.${toUnixSeconds(timestamp)}.`);
    mac.update(rawBody);
    return `v1,${mac.digest('base64')}`;
  }

  async signAsync(id: string, timestamp: number | Date, rawBody: RawBody): Promise<string> {
    const subtle = requireSubtle();
    const [key] = await this.#getSubtleKeys(subtle);
    const content = signedContent(`${id}.${toUnixSeconds(timestamp)}.`, rawBody);
    return `v1,${encodeBase64(new Uint8Array(await subtle.sign('HMAC', key!, content)))}`;
  }

  #checkHeaders(headers: WebhookHeaders): SignedHeaders {
    const id = readHeader(headers, 'webhook-id');
    const timestamp = readHeader(headers, 'webhook-timestamp');
    const signature = readHeader(headers, 'webhook-signature');
    if (!id || !timestamp || !signature) {
      const missing = [!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signature && 'webhook-signature'];
      throw new WebhookVerificationError(
        'missing_headers',
        `Missing webhook header(s): ${missing.filter(Boolean).join(', ')}`,
      );
    }
    if (!TIMESTAMP.test(timestamp)) {
      throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not an integer of Unix seconds');
    }
    const now = Math.floor(this.#now());
    const sent = Number(timestamp);
    if (now - sent > this.#toleranceSeconds) {
      throw new WebhookVerificationError('timestamp_too_old', 'webhook-timestamp is too far in the past');
    }
    if (sent - now > this.#toleranceSeconds) {
      throw new WebhookVerificationError('timestamp_too_new', 'webhook-timestamp is too far in the future');
    }
    return { id, timestamp, signature };
  }

  #getSubtleKeys(subtle: SubtleCrypto): Promise<CryptoKey[]> {
    this.#subtleKeys ??= Promise.all(
      this.#keys.map((key) => subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])),
    );
    return this.#subtleKeys;
  }
}

function decodeSecret(secret: unknown): Uint8Array<ArrayBuffer> {
  if (typeof secret !== 'string') throw new TypeError('Webhook secret must be a string');
  let text = secret.trim();
  if (text.startsWith(SECRET_PREFIX)) text = text.slice(SECRET_PREFIX.length);
  if (text === '') throw new TypeError('Webhook secret is empty');
  if (!BASE64.test(text)) {
    throw new TypeError('Webhook secret must be `whsec_` followed by standard base64 (A-Z a-z 0-9 + /)');
  }
  const key = decodeBase64(text);
  if (key.length === 0) throw new TypeError('Webhook secret decodes to zero bytes');
  return key;
}

/**
 * Whether the header lists `v1,<digest>` among its space-separated entries, `digest` being the base64 of the HMAC
 * computed here (canonical, as every sender writes it). Both verify paths decide here, so they accept exactly the same
 * headers, and they compare the base64 text as standardwebhooks does: an entry is the right length and `v1` or it is
 * skipped, other versions included. Every candidate is compared in full and the scan does not stop at a match, so its
 * time depends only on the header's shape, which the sender chose, never on how much of the digest an entry shares.
 */
function listsDigest(header: string, digest: string): boolean {
  let matched = 0;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(' ', start);
    if (end === -1) end = header.length;
    if (end - start === V1_ENTRY_LENGTH && header.startsWith(V1_PREFIX, start)) {
      let diff = 0;
      for (let i = 0; i < digest.length; i++)
        diff |= digest.charCodeAt(i) ^ header.charCodeAt(start + V1_PREFIX.length + i);
      matched |= diff === 0 ? 1 : 0;
    }
    start = end + 1;
  }
  return matched === 1;
}

function signedContent(prefix: string, rawBody: RawBody): Uint8Array<ArrayBuffer> {
  if (typeof rawBody === 'string') return utf8Encoder.encode(prefix + rawBody);
  const head = utf8Encoder.encode(prefix);
  const content = new Uint8Array(head.length + rawBody.length);
  content.set(head, 0);
  content.set(rawBody, head.length);
  return content;
}

function parsePayload(rawBody: RawBody): WebhookEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : decodeUtf8(rawBody));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Signature is valid but the body is not UTF-8 JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError('invalid_payload', 'Signature is valid but the body is not a JSON object');
  }
  return parsed as WebhookEvent;
}

function toUnixSeconds(timestamp: number | Date): number {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError('timestamp must be a Date or a non-negative integer of Unix seconds');
  }
  return seconds;
}

function noMatch(): WebhookVerificationError {
  return new WebhookVerificationError('no_matching_signature', 'No v1 signature matches the payload');
}
