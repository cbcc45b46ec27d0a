#!/usr/bin/env node
// Runs the built CLI (server/dist, `npm run build -w @paygate/server`). A checkout without that build runs the
// TypeScript source through tsx, a dev dependency of the repository: a production install carries neither tsx nor
// the sources' dev packages, only dist.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    console.error('paygate: the server is not built; run `npm run build -w @paygate/server` first');
    process.exit(1);
  }
  tsx.register();
  await import('../src/cli.ts');
}
