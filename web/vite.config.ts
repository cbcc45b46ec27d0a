import { defineConfig, type HtmlTagDescriptor, type Plugin } from 'vite';

const BASE = '/checkout/';

/**
 * The entry module is small and imports the app's chunk dynamically (src/checkout/main.tsx), so that it runs while
 * the app is still arriving. Without a hint, the browser would ask for the app only once the entry ran: one more
 * round trip before the first render. This names the chunks the entry imports (and what they import in turn, but
 * not their own dynamic imports, such as the QR encoder drawn after the first paint) as `modulepreload` links in
 * the HTML, so they are fetched beside the entry (docs/decisions.md §26.28). `crossorigin` as on Vite's own script
 * tag: a module is fetched in CORS mode, and a preload in another mode would not be reused.
 */
function preloadEntryImports(): Plugin {
  return {
    name: 'paygate:preload-entry-imports',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx): HtmlTagDescriptor[] {
        const { chunk: entry, bundle } = ctx;
        if (!entry || !bundle) return [];
        const files = new Set<string>();
        const visit = (name: string) => {
          const chunk = bundle[name];
          if (!chunk || chunk.type !== 'chunk' || files.has(name) || name === entry.fileName) return;
          files.add(name);
          chunk.imports.forEach(visit);
        };
        entry.dynamicImports.forEach(visit);
        // Vite preloads the entry's static imports itself.
        return [...files]
          .filter((file) => !html.includes(`${BASE}${file}"`))
          .map((file) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `${BASE}${file}` },
            injectTo: 'head',
          }));
      },
    },
  };
}

/**
 * The checkout is one HTML page whose assets live under /checkout/assets/ (content-hashed, so the server caches them
 * for a year). Workspace packages resolve to their TypeScript sources (the `@paygate/source` condition), so the page
 * needs no prior build of the SDK. No inline script or style is emitted: the server's CSP allows only 'self'.
 */
export default defineConfig({
  base: BASE,
  resolve: { conditions: ['@paygate/source', 'browser', 'module', 'import', 'default'] },
  plugins: [preloadEntryImports()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: { input: { checkout: 'checkout.html' } },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
