/** A merchant's, wallet's or asset's icon; its first letter when it has no icon the page may load. */
export function Monogram(props: { name: string; icon: string | null | undefined; size?: 'small' }) {
  const icon = props.icon && isLocalImage(props.icon) ? props.icon : null;
  const className = props.size === 'small' ? 'icon small' : 'icon';
  return icon ? (
    <img class={className} src={icon} alt="" />
  ) : (
    <span class={`${className} monogram`} aria-hidden="true">
      {props.name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/** Icons load only from this server or data: URIs (docs/decisions.md, "The hosted checkout": no third-party request). */
function isLocalImage(url: string): boolean {
  if (url.startsWith('data:image/')) return true;
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
}
