import type * as NodeBuffer from 'node:buffer';
import type * as NodeCrypto from 'node:crypto';

interface MaybeNodeProcess {
  process?: { getBuiltinModule?: (id: string) => unknown };
}

// getBuiltinModule (Node >= 20.16, Bun, Deno 2) keeps this module free of a static `node:` import, which would
// make bundlers for edge runtimes fail or pull in polyfills.
const runtime = (globalThis as MaybeNodeProcess).process;
export const nodeCrypto = runtime?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
const nodeBufferModule = runtime?.getBuiltinModule?.('node:buffer') as typeof NodeBuffer | undefined;
export const nodeBuffer = nodeBufferModule?.Buffer;

export function requireNodeCrypto(): typeof NodeCrypto {
  if (nodeCrypto === undefined || nodeBuffer === undefined) {
    throw new Error(
      'Synchronous webhook signing/verification needs node:crypto via process.getBuiltinModule (Node.js >= 20.16). ' +
        'On this runtime use the async variants: `await webhook.verifyAsync(...)` / `await webhook.signAsync(...)`.',
    );
  }
  return nodeCrypto;
}

export function requireSubtle(): SubtleCrypto {
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (subtle === undefined) {
    throw new Error('No WebCrypto (globalThis.crypto.subtle) on this runtime; cannot verify webhooks asynchronously.');
  }
  return subtle;
}

export const utf8Encoder = new TextEncoder();
// ignoreBOM keeps a BOM in the text so that byte bodies and string bodies parse (or fail) the same way.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Throws a TypeError on malformed UTF-8: the WHATWG decoder, on every runtime. */
export function decodeUtf8Portable(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

const isUtf8 = nodeBufferModule?.isUtf8;

/**
 * Throws a TypeError on malformed UTF-8. On Node.js, `Buffer#toString` (plus a validity check when the text holds
 * U+FFFD), which is what brings Buffer bodies to ≥ 3× standardwebhooks (BENCHMARKS.md, verifier): the fatal
 * TextDecoder takes a slower path there. Both keep a BOM and refuse exactly the same bytes (WHATWG UTF-8: no
 * overlongs, surrogates or code points above U+10FFFF); a test compares them.
 */
export const decodeUtf8: (bytes: Uint8Array) => string =
  nodeBuffer !== undefined && isUtf8 !== undefined
    ? (bytes) => {
        const buffer = nodeBuffer.isBuffer(bytes)
          ? bytes
          : nodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const text = buffer.toString('utf8');
        // Malformed bytes decode to U+FFFD, so only a text holding one (rare, and found at once in a one-byte
        // string) needs the validity check.
        if (text.indexOf('\uFFFD') !== -1 && !isUtf8(bytes)) {
          throw new TypeError('The encoded data was not valid for encoding utf-8');
        }
        return text;
      }
    : decodeUtf8Portable;

export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary);
}
