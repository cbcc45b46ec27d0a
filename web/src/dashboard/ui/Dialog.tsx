import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * A modal <dialog>: the browser traps focus in it, Escape closes it, and focus returns to what opened it. Mounted
 * when shown, unmounted when closed (the parent keeps the state).
 */
export function Dialog(props: { title: string; onClose(): void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => opener?.focus?.();
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'dialog wide' : 'dialog'}
      aria-labelledby={titleId}
      onClose={() => props.onClose()}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
