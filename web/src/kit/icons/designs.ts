/**
 * The token and network icons shipped with the app (docs/decisions.md §26.23): lettered badges drawn here, one
 * design for all, so no image is fetched (nothing leaves the page's origin) and no project's trademarked logo is
 * copied. A token is a circle with its currency sign or letter; a network is a rounded square with its initials.
 * Colours are the ones people associate with each (white glyphs on them are ≥ 4.5:1); unknown ones are neutral.
 */
export interface BadgeDesign {
  glyph: string;
  background: string;
}

const NEUTRAL = '#4b5563';

const TOKENS: Record<string, BadgeDesign> = {
  USDC: { glyph: '$', background: '#1f62b4' },
  EURC: { glyph: '€', background: '#1f4f9c' },
  USDT: { glyph: '₮', background: '#1a7557' },
  USDT0: { glyph: '₮', background: '#1a7557' },
  'USD₮0': { glyph: '₮', background: '#1a7557' },
  TUSD: { glyph: 'T', background: '#0f766e' },
  ETH: { glyph: 'Ξ', background: '#3c3c3d' },
  SOL: { glyph: '◎', background: '#5b2f91' },
  POL: { glyph: 'P', background: '#6b35c9' },
};

/** Matched on the network's name, testnets included ("Base Sepolia" is Base's); the first match wins. */
const NETWORKS: [RegExp, BadgeDesign][] = [
  [/^arbitrum/i, { glyph: 'A', background: '#1d4f91' }],
  [/^base/i, { glyph: 'B', background: '#0040c8' }],
  [/^op\b|optimism/i, { glyph: 'OP', background: '#c8001c' }],
  [/^polygon/i, { glyph: 'P', background: '#6b35c9' }],
  [/solana/i, { glyph: 'S', background: '#5b2f91' }],
  [/^(ethereum|sepolia)/i, { glyph: 'E', background: '#3f51b5' }],
  [/^local/i, { glyph: 'L', background: NEUTRAL }],
];

export function tokenDesign(symbol: string): BadgeDesign {
  return TOKENS[symbol] ?? { glyph: firstLetter(symbol), background: NEUTRAL };
}

export function networkDesign(name: string): BadgeDesign {
  return (
    NETWORKS.find(([pattern]) => pattern.test(name.trim()))?.[1] ?? { glyph: firstLetter(name), background: NEUTRAL }
  );
}

function firstLetter(text: string): string {
  return text.trim().charAt(0).toUpperCase() || '?';
}
