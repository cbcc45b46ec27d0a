/**
 * The pages web/ builds (web/dist/*.html), served with a JSON block of what only the server knows in place of their
 * `<!--paygate-config-->` placeholder. The block is data and never executed, so no page needs an inline script: each
 * loads its built script and style from files, and its CSP allows 'self' only.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The built pages of the @paygate/web package, found the way Node finds any dependency from `from` (a module URL),
 * not by a path into a checkout: a server installed alone (from server/dist, or under node_modules) has no web/
 * beside its sources. The package exports its package.json for this, and ships dist/ (its `files`).
 */
export function webDistFrom(from: string | URL): string {
  return join(dirname(createRequire(from).resolve('@paygate/web/package.json')), 'dist');
}

export const DEFAULT_WEB_DIST = webDistFrom(import.meta.url);

const PLACEHOLDER = '<!--paygate-config-->';

export interface WebPage {
  /** The page with `config` in its block, and, when given, `<html lang>` and `<title>` replaced. */
  render(config: unknown, options?: { lang?: string; title?: string }): string;
}

/** JSON inside <script type="application/json">: `<` is escaped so no value can close the element. */
function jsonBlock(value: unknown): string {
  const json = JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<script type="application/json" id="paygate-config">${json}</script>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Reads a built page once, and again when the file changes (a rebuild while the server runs). Null when web/ was
 * never built: the route then says how to build it instead of failing obscurely.
 */
export function webPageTemplate(file: string): () => WebPage | null {
  let cached: { mtimeMs: number; page: WebPage } | null = null;
  return () => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return null;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.page;
    const html = readFileSync(file, 'utf8');
    if (!html.includes(PLACEHOLDER)) throw new Error(`${file} has no ${PLACEHOLDER} placeholder`);
    const page: WebPage = {
      render(config, options = {}) {
        let out = html;
        // Function replacers: a `$'` in a merchant's name is text, not a replacement pattern.
        if (options.lang !== undefined) {
          const lang = options.lang;
          out = out.replace('<html lang="en">', () => `<html lang="${escapeHtml(lang)}">`);
        }
        if (options.title !== undefined) {
          const title = options.title;
          out = out.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`);
        }
        return out.replace(PLACEHOLDER, () => jsonBlock(config));
      },
    };
    cached = { mtimeMs, page };
    return page;
  };
}

/** What a page's route answers, in plain text with a 503, when web/dist has no such page. */
export function notBuilt(page: string): string {
  return `The ${page} is not built: run \`npm run build -w @paygate/web\` (npm ci runs it).\n`;
}
