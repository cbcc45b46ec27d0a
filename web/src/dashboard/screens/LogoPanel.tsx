import { useState } from 'preact/hooks';
import { useDashboard } from '../context';
import type { Settings as MerchantSettings } from '../schemas';
import { FieldError } from '../../kit/Field.js';
import { FailureError, localFailure } from '../../kit/failure.js';
import { request, useAction } from '../../kit/request.js';

/** The server's bounds (server/src/accounts/logoImage.ts), checked here too so a big file is not sent for nothing. */
const MAX_BYTES = 128 * 1024;

/**
 * The merchant's logo: a PNG, JPEG or WebP file uploaded to Paygate, which checks it, strips its metadata and serves
 * it from this origin (docs/decisions.md §26.23). Uploading and removing are actions of their own, applied at once,
 * not fields of the settings form: a file is not a value to edit.
 */
export function LogoPanel(props: { settings: MerchantSettings; editable: boolean; onChanged(): void }) {
  const { api } = useDashboard();
  const [done, setDone] = useState('');
  const upload = useAction(async (file: File) => {
    setDone('');
    if (file.size > MAX_BYTES) {
      const size = Math.ceil(file.size / 1024);
      throw new FailureError(localFailure(`The file is ${size} KiB; a logo may be at most 128 KiB.`, 'image'));
    }
    const image = await base64Of(file);
    await request(api.PUT('/v1/dashboard/settings/logo', { body: { image } }));
    setDone('Logo uploaded');
    props.onChanged();
  });
  const remove = useAction(async () => {
    setDone('');
    await request(api.DELETE('/v1/dashboard/settings/logo'));
    setDone('Logo removed');
    props.onChanged();
  });
  const failure = upload.failure ?? remove.failure;
  const icon = props.settings.iconUrl;
  const name = props.settings.name;
  return (
    <div class="panel" role="region" aria-labelledby="logo-title">
      <h2 id="logo-title">Logo</h2>
      <div class="logo-row">
        {icon ? (
          <img class="icon-preview" src={icon} alt={`${name}'s logo`} />
        ) : (
          <span class="monogram" aria-hidden="true">
            {(name.trim()[0] ?? '?').toUpperCase()}
          </span>
        )}
        <div class="field">
          <label for="logo-file">{icon ? 'Replace the logo' : 'Upload a logo'}</label>
          <input
            id="logo-file"
            type="file"
            accept="image/png,image/jpeg,image/webp"
            disabled={!props.editable || upload.busy}
            aria-describedby={`logo-hint${failure?.param === 'image' ? ' logo-error' : ''}`}
            aria-invalid={failure?.param === 'image' ? true : undefined}
            onChange={(e) => {
              const file = e.currentTarget.files?.[0];
              e.currentTarget.value = '';
              if (file) void upload.run(file);
            }}
          />
          <p class="hint" id="logo-hint">
            Shown to buyers at the top of the checkout. PNG, JPEG or WebP, at most 128 KiB, each side 32–2048 px; square
            looks best. Paygate removes the file’s metadata (such as a photo’s location) and serves it itself.
          </p>
          <FieldError id="logo-error" message={failure ? failure.message : null} />
        </div>
      </div>
      {props.editable && (
        <div class="actions">
          {icon && (
            <button type="button" class="button secondary" disabled={remove.busy} onClick={() => void remove.run()}>
              Remove the logo
            </button>
          )}
          <span role="status" class="copy-status">
            {upload.busy ? 'Uploading…' : done}
          </span>
        </div>
      )}
    </div>
  );
}

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(new FailureError(localFailure('The file could not be read.', 'image')));
    reader.readAsDataURL(file);
  });
}
