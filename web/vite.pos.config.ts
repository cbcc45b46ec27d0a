import { defineConfig } from 'vite';

/**
 * The point-of-sale screen at /pos/{posId} (docs/decisions.md §30.15), built after the dashboard into the same
 * dist/: its script and style are content-hashed files under /pos/assets/, so its CSP allows 'self' and nothing
 * inline. It imports only the gateway contract's generated types (type-only, erased).
 */
export default defineConfig({
  base: '/pos/',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: { input: { pos: 'pos.html' } },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
