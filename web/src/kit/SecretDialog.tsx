import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { CopyButton } from './CopyButton.js';
import { Dialog } from './Dialog.js';

/**
 * A secret shown once (an API key, a webhook signing secret, recovery codes, an invitation link): it is in this
 * dialog's memory only, never in the URL or storage, and is gone when the dialog closes. Copy, and optionally
 * download as a .txt file made in the page (a Blob URL: no request leaves the page). Closing asks for an explicit
 * "I have saved it".
 */
export function SecretDialog(props: {
  title: string;
  /** What the secret is and what to do with it. */
  intro: ComponentChildren;
  secret: string;
  /** Offer a .txt download of the secret under this file name. */
  downloadName?: string;
  /** Shown in a <pre> when several lines (recovery codes). */
  multiline?: boolean;
  /** Said after the secret (when the previous one stops signing). */
  children?: ComponentChildren;
  onClose(): void;
}) {
  const [downloadUrl, setDownloadUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!props.downloadName) return;
    const url = URL.createObjectURL(new Blob([`${props.secret}\n`], { type: 'text/plain;charset=utf-8' }));
    setDownloadUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [props.secret, props.downloadName]);
  return (
    <Dialog title={props.title} onClose={props.onClose} wide>
      <div class="dialog-body">
        {props.intro}
        <p class="once">This is shown only once. It cannot be shown again after you close this dialog.</p>
        {props.multiline ? (
          <pre class="secret" data-secret tabIndex={0} aria-label={props.title}>
            {props.secret}
          </pre>
        ) : (
          <code class="secret" data-secret>
            {props.secret}
          </code>
        )}
        {props.children}
        <div class="actions">
          <CopyButton value={props.secret} />
          {downloadUrl && props.downloadName && (
            <a class="button secondary" href={downloadUrl} download={props.downloadName}>
              Download .txt
            </a>
          )}
        </div>
      </div>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={() => props.onClose()}>
          I have saved it
        </button>
      </div>
    </Dialog>
  );
}
