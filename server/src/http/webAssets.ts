/**
 * The built assets of web/'s pages, sent compressed: web/'s build writes a Brotli and a gzip copy of each file, and this
 * picks the best one the browser accepts (no compression work per request). Names are content-hashed, so a year of
 * caching never serves a stale file.
 */
import { existsSync } from 'node:fs';
import { extname, join } from 'node:path';
import express, { type RequestHandler } from 'express';

const ENCODINGS = [
  { token: 'br', suffix: '.br' },
  { token: 'gzip', suffix: '.gz' },
] as const;

const CACHE = { immutable: true, maxAge: '365d', index: false, redirect: false } as const;

/** The encodings a request accepts (`q=0` refuses one), as lower-case tokens. */
function accepted(header: string | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [token, ...params] = part.trim().toLowerCase().split(';');
    if (!token || params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p))) continue;
    tokens.add(token);
  }
  return tokens;
}

export function webAssets(dir: string): RequestHandler {
  const plain = express.static(dir, CACHE);
  return (req, res, next) => {
    res.vary('Accept-Encoding');
    const accepts = accepted(req.get('accept-encoding'));
    let name: string | null;
    try {
      name = decodeURIComponent(req.path);
    } catch {
      name = null; // Not percent-encoding: express.static answers it.
    }
    if (name !== null && !name.includes('..') && /\.(js|css|svg)$/.test(name)) {
      const encoding = ENCODINGS.find((e) => accepts.has(e.token) && existsSync(join(dir, name + e.suffix)));
      if (encoding) {
        res.set('Content-Encoding', encoding.token);
        res.type(extname(name));
        res.sendFile(
          name + encoding.suffix,
          { root: dir, ...CACHE, acceptRanges: false, headers: { 'Content-Encoding': encoding.token } },
          (err) => {
            if (err) next(err);
          },
        );
        return;
      }
    }
    plain(req, res, next);
  };
}
