/** Anything with a WHATWG-style `get`: `Headers`, undici's, Hono's `c.req.raw.headers`. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** A plain object with names in any case, Node's `IncomingHttpHeaders` included. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

export type WebhookHeaders = HeadersLike | HeaderRecord;

export function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as HeadersLike).get(name) ?? undefined;
  }
  const record = headers as HeaderRecord;
  // Node lower-cases incoming names, so the direct lookup is the common case; the scan covers hand-built objects.
  let value = record[name];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.length === name.length && key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined || typeof value === 'string') return value;
  return value.join(' ');
}
