import { defineConfig } from 'vite';

/**
 * A refund's claim page (docs/decisions.md §22.6), built into the same dist/ after the others: its script and style
 * are files under /refund/assets/ (content-hashed), so its CSP allows 'self' and nothing inline. ES2017 like the
 * data-collection form: buyers open the link in whatever browser their mail app brings up.
 */
export default defineConfig({
  base: '/refund/',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2017',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: { input: { refund: 'refund.html' } },
  },
});
