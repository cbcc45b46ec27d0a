import { defineConfig } from 'vite';

/**
 * The merchant dashboard (a single-page app at /dashboard), built after the checkout and the collect form into the
 * same dist/: its script and style are content-hashed files under /dashboard/assets/, so the server caches them for
 * a year and its CSP allows 'self' and nothing inline. It imports only the dashboard API's generated types (type-only,
 * erased), so no server code reaches the bundle.
 */
export default defineConfig({
  base: '/dashboard/',
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rollupOptions: { input: { dashboard: 'dashboard.html' } },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
