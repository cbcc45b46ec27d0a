import { isLocalImage } from './localImage.js';

/**
 * The merchant's uploaded logo beside its name (docs/decisions.md §26.27), or nothing: only an image from this
 * origin is drawn, never a remote one (no third-party request). The standalone pages do the same in plain DOM
 * (standalone/dom.ts `showMerchant`).
 */
export function MerchantLogo(props: { url: string | null | undefined; name: string }) {
  if (!props.url || !isLocalImage(props.url)) return null;
  return <img class="merchant-logo" src={props.url} alt={`${props.name}'s logo`} />;
}
