import { renderSVG } from 'uqr';

/**
 * A QR code drawn in the page, as an image from a data: URI (the CSP allows data: images): the 2FA secret it holds
 * never leaves the page in a request. Same drawing as the checkout's (web/src/checkout/qr.tsx).
 */
export function QrCode(props: { value: string; label: string }) {
  const svg = renderSVG(props.value, { ecc: 'M', border: 2 });
  const src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  return <img class="qr" src={src} alt={props.label} width={192} height={192} />;
}
