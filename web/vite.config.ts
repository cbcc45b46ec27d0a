import { defineConfig } from 'vite';

/**
 * The checkout is one HTML page whose assets live under /checkout/assets/ (content-hashed, so the server caches them
 * for a year). Workspace packages resolve to their TypeScript sources (the `@paygate/source` condition), so the page
 * needs no prior build of the SDK. No inline script or style is emitted: the server's CSP allows only 'self'.
 */
export default defineConfig({
  base: '/checkout/',
  resolve: { conditions: ['@paygate/source', 'browser', 'module', 'import', 'default'] },
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
