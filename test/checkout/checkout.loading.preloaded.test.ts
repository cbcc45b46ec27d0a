import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The checkout's loading path as built (docs/decisions.md §26.28): the HTML's module script is a small entry that
 * runs while the app's chunk is still arriving, and the HTML names that chunk as a `modulepreload`, so the app is
 * fetched beside the entry rather than after it (no request waits on another before the first render). The global
 * setup builds web/, so this reads what the server sends.
 */
const DIST = join(process.cwd(), 'web', 'dist');
/** Small enough to arrive and run long before the app's chunk: its config read and its locale warm-up only. */
const ENTRY_LIMIT = 10_000;

function builtPage() {
  const html = readFileSync(join(DIST, 'checkout.html'), 'utf8');
  const scripts = [...html.matchAll(/<script type="module"[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]*\shref="([^"]+)"/g)].map((m) => m[1]!);
  const file = (href: string) => join(DIST, href.replace(/^\/checkout\//, ''));
  return { html, scripts, preloads, file };
}

describe('hosted checkout: the loading path as built', () => {
  it('the page loads one small entry module, and every chunk that entry imports is preloaded by the HTML', () => {
    const { html, scripts, preloads, file } = builtPage();
    assert.equal(scripts.length, 1, html);
    const entry = file(scripts[0]!);
    assert.ok(statSync(entry).size <= ENTRY_LIMIT, `the entry is ${statSync(entry).size} bytes (≤ ${ENTRY_LIMIT})`);
    const code = readFileSync(entry, 'utf8');
    const imported = [...code.matchAll(/import\(\s*[`'"]\.\/([^`'"]+\.js)[`'"]\s*\)/g)].map((m) => m[1]!);
    assert.ok(imported.length >= 1, 'the entry imports the app');
    const preloaded = new Set(preloads.map((href) => href.replace(/^.*\//, '')));
    for (const chunk of imported) assert.ok(preloaded.has(chunk), `${chunk} is preloaded: ${preloads.join(', ')}`);
    for (const href of preloads) assert.ok(existsSync(file(href)), `${href} exists`);
    // Preloads are same-origin module requests (CORS mode, as the module script): crossorigin keeps them one fetch.
    for (const tag of html.match(/<link rel="modulepreload"[^>]*>/g) ?? []) assert.match(tag, /\scrossorigin/);
  });

  it('the HTML preloads the app only: the QR encoder, drawn after the first paint (§26.15), stays a later chunk', () => {
    const { preloads, file } = builtPage();
    assert.ok(
      preloads.length >= 1 && preloads.length <= 2,
      `the app, and a shared chunk at most: ${preloads.join(', ')}`,
    );
    // `0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:` is the QR alphanumeric alphabet, in uqr's chunk only.
    for (const href of preloads)
      assert.doesNotMatch(readFileSync(file(href), 'utf8'), /0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ \$%\*\+-\.\/:/, href);
  });
});
