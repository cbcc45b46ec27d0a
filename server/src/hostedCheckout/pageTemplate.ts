/**
 * The hosted checkout page (`GET /pay/{paymentId}`): the HTML that web/ builds, with a JSON block of what only the
 * server knows (web/src/pageConfig.ts). The page itself reads the payment through the gateway API; this module never
 * puts an amount or an address into the HTML, and reads nothing from the query but the language.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckoutChain, CheckoutPageConfig } from '../../../web/src/pageConfig.js';
import type { Chains } from '../chains/index.js';
import type { Mode } from '../accounts/keys.js';

/** The catalogue's languages (web/src/pageConfig.ts LANGUAGES; a test keeps the two equal). */
export const CHECKOUT_LANGUAGES = ['en', 'fr'] as const;

export const DEFAULT_WEB_DIST = join(dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

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
  const evm = chains.evm
    .filter(({ config }) => config.mode === mode && settlement[config.caip2] !== undefined)
    .map(({ config }): CheckoutChain => {
      const native = config.assets.find((a) => a.address === null);
      return {
        caip2: config.caip2,
        name: config.name,
        assets: config.assets.map((a) => a.symbol),
        explorerTxUrl: config.explorerTxUrl,
        addChain: config.publicRpcUrl
          ? {
              chainId: `0x${config.chainId.toString(16)}`,
              chainName: config.name,
              rpcUrls: [config.publicRpcUrl],
              nativeCurrency: { name: native?.name ?? 'Ether', symbol: native?.symbol ?? 'ETH', decimals: 18 },
              ...(config.explorerTxUrl ? { blockExplorerUrls: [new URL(config.explorerTxUrl).origin] } : {}),
            }
          : null,
      };
    });
  const solana = chains.solana
    .filter(({ config }) => config.mode === mode && settlement[config.caip2] !== undefined)
    .map(({ config }): CheckoutChain => ({
      caip2: config.caip2,
      name: config.name,
      assets: config.assets.map((a) => a.symbol),
      explorerTxUrl: config.explorerTxUrl,
      addChain: null,
    }));
  return [...evm, ...solana];
}

export interface CheckoutTemplate {
  render(config: CheckoutPageConfig, title: string): string;
}

const PLACEHOLDER = '<!--paygate-config-->';

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
 * Reads the built page once, and again when the file changes (a rebuild while the server runs). Null when web/ was
 * never built: the route then says how to build it instead of failing obscurely.
 */
export function checkoutTemplate(distDir: string): () => CheckoutTemplate | null {
  const file = join(distDir, 'checkout.html');
  let cached: { mtimeMs: number; template: CheckoutTemplate } | null = null;
  return () => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return null;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.template;
    const html = readFileSync(file, 'utf8');
    if (!html.includes(PLACEHOLDER)) throw new Error(`${file} has no ${PLACEHOLDER} placeholder`);
    const template: CheckoutTemplate = {
      render(config, title) {
        return (
          html
            .replace('<html lang="en">', () => `<html lang="${escapeHtml(config.lang)}">`)
            // Function replacers: a `$'` in a merchant's name is text, not a replacement pattern.
            .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`)
            .replace(PLACEHOLDER, () => jsonBlock(config))
        );
      },
    };
    cached = { mtimeMs, template };
    return template;
  };
}
