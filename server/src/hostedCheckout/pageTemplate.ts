/**
 * The hosted checkout page (`GET /pay/{paymentId}`): the HTML that web/ builds, with a JSON block of what only the
 * server knows (web/src/pageConfig.ts). The page itself reads the payment through the gateway API; this module never
 * puts an amount or an address into the HTML, and reads nothing from the query but the language.
 */
import { join } from 'node:path';
import type { CheckoutChain, CheckoutPageConfig } from '@paygate/web/pageConfig';
import { allChains, type Chains } from '../chains/index.js';
import type { Mode } from '../accounts/keys.js';
import { webPageTemplate } from '../http/webPages.js';

export { DEFAULT_WEB_DIST } from '../http/webPages.js';

/** The catalogue's languages (web/src/pageConfig.ts LANGUAGES; a test keeps the two equal). */
export const CHECKOUT_LANGUAGES = ['en', 'fr'] as const;

/** `?lang=` when it names a catalogue language, else the best `Accept-Language` match by q, else English. */
export function pickLanguage(query: unknown, acceptLanguage: string | undefined): string {
  const supported: readonly string[] = CHECKOUT_LANGUAGES;
  if (typeof query === 'string' && supported.includes(query.toLowerCase())) return query.toLowerCase();
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: (tag ?? '').toLowerCase().split('-')[0]!, q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && Number.isFinite(entry.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.find((entry) => supported.includes(entry.lang))?.lang ?? 'en';
}

/**
 * The chains a payment may be paid on, as the page needs them (no RPC URL but a public one): those of its mode on
 * which the merchant has a settlement address, the same rule the options follow.
 */
export function checkoutChains(chains: Chains | null, mode: Mode, settlement: Record<string, string>): CheckoutChain[] {
  if (!chains) return [];
  return allChains(chains)
    .filter(({ config }) => config.mode === mode && settlement[config.caip2] !== undefined)
    .map(({ config, addChain }): CheckoutChain => ({
      caip2: config.caip2,
      name: config.name,
      assets: config.assets.map((a) => a.symbol),
      explorerTxUrl: config.explorerTxUrl,
      addChain,
    }));
}

export interface CheckoutTemplate {
  render(config: CheckoutPageConfig, title: string): string;
}

/** The built checkout page (web/dist/checkout.html); null when web/ was never built. */
export function checkoutTemplate(distDir: string): () => CheckoutTemplate | null {
  const page = webPageTemplate(join(distDir, 'checkout.html'));
  return () => {
    const built = page();
    return built && { render: (config, title) => built.render(config, { lang: config.lang, title }) };
  };
}
