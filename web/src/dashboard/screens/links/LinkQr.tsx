import { renderSVG } from 'uqr';
import { CopyButton } from '../../../kit/CopyButton.js';

/**
 * A link's URL as a QR code to print or show, with copy and download (an SVG file, drawn in the page like the
 * checkout's and the 2FA code's: nothing is sent anywhere to draw it).
 */
export function LinkQr(props: { url: string; id: string }) {
  const svg = renderSVG(props.url, { ecc: 'M', border: 2 });
  const src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  return (
    <div class="link-share">
      <img class="qr" src={src} alt={`QR code of the payment link ${props.url}`} width={192} height={192} />
      <p class="mono break">{props.url}</p>
      <div class="row-buttons">
        <CopyButton value={props.url} label="Copy link" />
        <a class="button secondary" href={src} download={`${props.id}.svg`}>
          Download QR code
        </a>
      </div>
    </div>
  );
}
