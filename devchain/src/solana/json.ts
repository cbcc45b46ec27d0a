/**
 * JSON with u64 integers. Solana RPC puts lamports, slots and amounts on the wire as bare JSON integers, which may
 * exceed 2^53; @solana/kit reads every integer as a bigint and writes bigints as bare integers. These two functions do
 * the same on the server side (the approach of kit's own `parseJsonWithBigInts`, which kit does not re-export).
 */

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

/** Parses JSON, reading integers beyond Number.MAX_SAFE_INTEGER as bigints (smaller ones stay numbers). */
export function parseJsonWithBigInts(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const literal = NUMBER.exec(text.slice(i, i + 400))?.[0];
      if (literal) {
        const integer = !/[.eE]/.test(literal);
        out += integer && !Number.isSafeInteger(Number(literal)) ? `{"$bigint":"${literal}"}` : literal;
        i += literal.length - 1;
        continue;
      }
    }
    out += c;
  }
  return JSON.parse(out, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && '$bigint' in value && Object.keys(value).length === 1
      ? BigInt((value as { $bigint: string }).$bigint)
      : value,
  );
}

/** Serialises to JSON, writing bigints as bare integers (what Solana RPC clients expect for u64 fields). */
export function stringifyJsonWithBigInts(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v)).replace(
    /\{"\$bigint":"(-?\d+)"\}/g,
    '$1',
  );
}
