import { useState } from 'preact/hooks';

/**
 * Copies `value` to the clipboard and says so right beside the button (in a live region, for screen readers too),
 * so the confirmation is seen where the user looked.
 */
export function CopyButton(props: { value: string; label?: string }) {
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
      <button type="button" class="button secondary" onClick={() => void copy()}>
        {props.label ?? 'Copy'}
      </button>
      <span role="status" class="copy-status">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </span>
  );
}
