import { renderSVG } from 'uqr';

/**
 * A QR code drawn here, as an image from a data: URI: no request leaves the page, and an <img> with alt text is
 * what assistive technology reads. Medium error correction leaves room for a phone camera at an angle.
 */
export function QrCode(props: { value: string; label: string }) {
  const svg = renderSVG(props.value, { ecc: 'M', border: 2 });
  const src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  return <img class="qr" src={src} alt={props.label} width={192} height={192} />;
}
