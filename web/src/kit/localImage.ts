/**
 * Whether an icon may be shown: only images from this server or data: URIs load (docs/decisions.md, "The hosted
 * checkout": no third-party request). Settings uses it to say beforehand which logo the checkout will not show.
 */
export function isLocalImage(url: string): boolean {
  if (url.startsWith('data:image/')) return true;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}
