import { defineConfig, type Plugin } from 'vite';

/**
 * Puts the page's own script and style into its HTML, so the page is one document that loads nothing, and fails the
 * build if anything would still be loaded beside it. The server hashes what this writes for the page's CSP.
 */
function selfContained(page: string, base: string): Plugin {
  return {
    name: 'paygate:self-contained',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle || !ctx.filename.endsWith(`/${page}`)) return html;
        const take = (url: string): string => {
          const file = bundle[url.slice(base.length)];
          if (!file) throw new Error(`${page}: ${url} is not in the bundle`);
          delete bundle[file.fileName];
          const text = file.type === 'chunk' ? file.code : String(file.source);
          if (/<\/(script|style)/i.test(text)) throw new Error(`${page}: ${url} would close its element`);
          return text.trim();
        };
        const inlined = html
          .replace(/<script type="module" crossorigin src="([^"]+)"><\/script>/g, (_, url: string) => {
            return `<script type="module">${take(url)}</script>`;
          })
          .replace(/<link rel="stylesheet" crossorigin href="([^"]+)">/g, (_, url: string) => {
            return `<style>${take(url)}</style>`;
          });
        const left = Object.keys(bundle).filter((name) => name !== page);
        if (left.length > 0) throw new Error(`${page} would load ${left.join(', ')}`);
        return inlined;
      },
    },
  };
}

/**
 * The data-collection form (docs/decisions.md §16), built after the checkout into the same dist/: one self-contained
 * document, since a wallet's web view opens it on its own and its CSP allows exactly its script and style by hash.
 * A build of its own because it targets older web views than the checkout (ES2017: no class fields, no `?.`).
 */
export default defineConfig({
  base: '/collect/',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2017',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: { input: { collect: 'collect.html' } },
  },
  plugins: [selfContained('collect.html', '/collect/')],
});
