import { isLocalImage } from '../../kit/localImage.js';

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
