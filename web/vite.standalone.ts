import { defineConfig, type UserConfig } from 'vite';

/**
 * A small standalone page (the data-collection form, the refund claim page), built after the checkout into the same
 * dist/: its script and style are files under /<name>/assets/ (content-hashed), so its CSP allows 'self' and nothing
 * inline. A build of its own because it targets older browsers than the checkout (ES2020: no class fields), wallets'
 * web views and whatever browser a mail app brings up. ES2020, not older: the invoice page's amounts are BigInt
 * (kit/amounts.ts), which no transform can lower, so an older target only hid that behind build warnings.
 */
export function standalonePage(name: string): UserConfig {
  return defineConfig({
    base: `/${name}/`,
    build: {
      outDir: 'dist',
      emptyOutDir: false,
      target: 'es2020',
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      rollupOptions: { input: { [name]: `${name}.html` } },
    },
  });
}
