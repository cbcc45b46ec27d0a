import { networkDesign, tokenDesign, type BadgeDesign } from './designs.js';

/**
 * A token's icon, with its network's in the corner when named. Each is an SVG drawn here and shown as a data: image:
 * no request (the checkout's CSP allows data: images), no text in the page's text (the symbol and the network's
 * name are always written beside it, so the image is decorative: empty alt).
 */
export function TokenIcon(props: { symbol: string; network?: string | null; size?: number }) {
  const token = tokenDesign(props.symbol);
  const corner = props.network ? networkDesign(props.network) : null;
  const svg =
    `<circle cx="16" cy="16" r="16" fill="${token.background}"/>${glyph(token, 16, 16, token.glyph.length > 1 ? 13 : 18)}` +
    (corner
      ? `<rect x="19" y="19" width="13" height="13" rx="3.5" fill="${corner.background}" stroke="#fff" stroke-width="1.5"/>` +
        glyph(corner, 25.5, 25.5, corner.glyph.length > 1 ? 5.5 : 8)
      : '');
  return <Badge svg={svg} size={props.size ?? 24} data-token-icon={props.symbol} />;
}

/** A network's icon before its name. */
export function NetworkIcon(props: { name: string; size?: number }) {
  const design = networkDesign(props.name);
  const svg = `<rect width="32" height="32" rx="8" fill="${design.background}"/>${glyph(design, 16, 16, design.glyph.length > 1 ? 13 : 18)}`;
  return <Badge svg={svg} size={props.size ?? 16} data-network-icon={props.name} />;
}

/** A network's name with its icon, for a table cell or a line of text. */
export function NetworkName(props: { name: string }) {
  return (
    <span class="with-icon">
      <NetworkIcon name={props.name} />
      {props.name}
    </span>
  );
}

function Badge(props: { svg: string; size: number; 'data-token-icon'?: string; 'data-network-icon'?: string }) {
  const { svg, size, ...data } = props;
  const file = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 32 32">${svg}</svg>`;
  return (
    <img
      class="asset-icon"
      src={`data:image/svg+xml,${encodeURIComponent(file)}`}
      width={size}
      height={size}
      alt=""
      {...data}
    />
  );
}

function glyph(design: BadgeDesign, x: number, y: number, size: number): string {
  // The glyphs are the designs' own constants, but escaped all the same: this string becomes an image's markup.
  const text = design.glyph.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<text x="${x}" y="${y}" dy="0.35em" text-anchor="middle" fill="#fff" ` +
    `font-family="system-ui, sans-serif" font-weight="700" font-size="${size}">${text}</text>`
  );
}
