// Writes a Brotli (.br) and a gzip (.gz) copy of every built asset, at the highest levels, once at build time, so
// the server sends compressed files without compressing on each request (server/src/http/webAssets.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const dir = join(import.meta.dirname, 'dist', 'assets');
for (const name of readdirSync(dir)) {
  if (!/\.(js|css|svg)$/.test(name)) continue;
  const raw = readFileSync(join(dir, name));
  writeFileSync(join(dir, `${name}.br`), brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(join(dir, `${name}.gz`), gzipSync(raw, { level: 9 }));
}
