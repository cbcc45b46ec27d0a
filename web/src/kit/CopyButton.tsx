import { useState } from 'preact/hooks';

/**
 * Copies `value` to the clipboard and says so right beside the button (in a live region, for screen readers too),
 * so the confirmation is seen where the user looked.
 */
/**
 * `of`: what is copied, read by screen readers only (a row's "Copy link" names its invoice); `small` for a table row's
 * buttons, beside the other small ones.
 */
export function CopyButton(props: { value: string; label?: string; of?: string; small?: boolean }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copy">
      <button
        type="button"
        class={props.small ? 'button secondary small' : 'button secondary'}
        onClick={() => void copy()}
      >
        {props.label ?? 'Copy'}
        {props.of && <span class="visually-hidden"> of {props.of}</span>}
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </span>
  );
}
