import { useEffect, useRef } from 'preact/hooks';

/** A view's heading takes the focus when the view appears, so keyboard and screen reader users land on it. */
export function Heading(props: { children: string; class?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h2 ref={ref} tabIndex={-1} class={props.class}>
      {props.children}
    </h2>
  );
}
