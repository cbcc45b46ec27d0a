import { useEffect, useState } from 'preact/hooks';

/**
 * A QR code drawn here, as an image from a data: URI: no request leaves the page, and an <img> with alt text is
 * what assistive technology reads. Medium error correction leaves room for a phone camera at an angle.
 *
 * The encoder is loaded and run after the first paint (its own chunk, `import('uqr')`): a QR code is never what makes
 * the page usable, and encoding one in the first render delayed it (decisions.md §26.15). Until then a box of the
 * same size and name holds its place, so nothing moves when it appears.
 */
export function QrCode(props: { value: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void import('uqr').then(({ renderSVG }) => {
      if (!current) return;
      const svg = renderSVG(props.value, { ecc: 'M', border: 2 });
      setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    });
    return () => {
      current = false;
    };
  }, [props.value]);
  return src ? (
    <img class="qr" src={src} alt={props.label} width={192} height={192} />
  ) : (
    <span class="qr" role="img" aria-label={props.label} aria-busy="true" />
  );
}
