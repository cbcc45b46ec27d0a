/**
 * The merchant's data-collection form (the option's `collectData.url`) in a modal dialog. The form tells its framer
 * `IC_COMPLETE` or `IC_ERROR` by postMessage (docs/decisions.md §16); only messages from this frame count.
 */
import { useEffect, useRef } from 'preact/hooks';

export class CollectError extends Error {}
/** The buyer closed the form: back to the options, with nothing signed. */
export class CollectClosed extends Error {}

export interface CollectRequest {
  url: string;
  resolve: () => void;
  reject: (error: Error) => void;
}

export function CollectDialog(props: {
  request: CollectRequest;
  title: string;
  closeLabel: string;
  onDone: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const { request, onDone } = props;

  useEffect(() => {
    dialog.current?.showModal();
    const origin = new URL(request.url, location.href).origin;
    const onMessage = (event: MessageEvent) => {
      if (event.source !== frame.current?.contentWindow || event.origin !== origin) return;
      const data = event.data as { type?: unknown; message?: unknown; error?: unknown } | null;
      if (data?.type === 'IC_COMPLETE') {
        onDone();
        request.resolve();
      } else if (data?.type === 'IC_ERROR') {
        onDone();
        request.reject(new CollectError(String(data.message ?? data.error ?? 'IC_ERROR')));
      }
    };
    window.addEventListener('message', onMessage);
    const opener = document.activeElement as HTMLElement | null;
    return () => {
      window.removeEventListener('message', onMessage);
      // Back where the buyer was (the pay button), as a closing dialog does.
      dialog.current?.close();
      opener?.focus();
    };
  }, [request, onDone]);

  const close = () => {
    onDone();
    request.reject(new CollectClosed('closed'));
  };

  return (
    <dialog
      ref={dialog}
      class="collect"
      aria-labelledby="collect-title"
      onCancel={(e) => (e.preventDefault(), close())}
    >
      <div class="collect-head">
        <h2 id="collect-title">{props.title}</h2>
        <button type="button" class="secondary" onClick={close}>
          {props.closeLabel}
        </button>
      </div>
      <iframe ref={frame} src={request.url} title={props.title} />
    </dialog>
  );
}
