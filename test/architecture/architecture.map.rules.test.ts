/**
 * ARCHITECTURE.md is the five-minute map (issue 32 §4): it stays short, and every file or folder it names in
 * backticks exists, so a move or a rename that forgets the map fails here instead of misleading a newcomer.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '..', '..');
const MAX_WORDS = 1_500;

/** Backticked spans that name a file or folder: a slash or a known extension, no placeholder or glob. */
export function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  return spans.filter(
    (s) =>
      /^[\w@./-]+$/.test(s) &&
      (s.includes('/') || /\.(ts|tsx|md|json|yml|yaml|sh)$/.test(s)) &&
      !/[<>*]|NAME/.test(s) &&
      !s.startsWith('/') &&
      !/^\w+\.\w+$/.test(s.replace(/\.(ts|tsx|md|json|yml|yaml|sh)$/, '')),
  );
}

/** A path as the map writes it: from the repository's root, or from server/src/ for the server's modules. */
export function resolves(path: string, exists: (p: string) => boolean): boolean {
  return [path, join('server/src', path)].some((p) => exists(p));
}

describe('ARCHITECTURE.md map rules', () => {
  const map = readFileSync(join(REPO, 'ARCHITECTURE.md'), 'utf8');

  it(`stays at most ${MAX_WORDS} words`, () => {
    const words = map.split(/\s+/).filter(Boolean).length;
    assert.ok(
      words <= MAX_WORDS,
      `ARCHITECTURE.md has ${words} words; move detail to docs/modules.md or a folder README`,
    );
  });

  it('names only files and folders that exist', () => {
    const missing = namedPaths(map).filter((p) => !resolves(p, (q) => existsSync(join(REPO, q))));
    assert.deepEqual(missing, []);
  });

  it('the path rule reads a repository path and a server module, and skips placeholders and commands', () => {
    const found = namedPaths(
      '`web/src/kit/amounts.ts`, `checkout/options.ts`, `chains/<namespace>/`, `npm test`, `*.json`',
    );
    assert.deepEqual(found, ['web/src/kit/amounts.ts', 'checkout/options.ts']);
    assert.equal(
      resolves('checkout/options.ts', (q) => q === 'server/src/checkout/options.ts'),
      true,
    );
    assert.equal(
      resolves('checkout/gone.ts', () => false),
      false,
    );
  });
});
