import { defineConfig } from 'vite';

/**
 * The data-collection form (docs/decisions.md §16), built after the checkout into the same dist/: its script and
 * style are files under /collect/assets/ (content-hashed), so its CSP allows 'self' and nothing inline. A build of
 * its own because it targets older web views than the checkout (ES2017: no class fields, no `?.`), which a wallet
 * may open it in.
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
});
