import { useState } from 'preact/hooks';

/** The key is entered once on the device; it is kept in the device's storage (keyStore.ts). */
export function KeyEntry(props: { refused: boolean; onKey(key: string): void }) {
  const [key, setKey] = useState('');
  return (
    <main class="pos-key">
      <h1>Set up this point of sale</h1>
      <p>Enter the POS access key shown when the terminal was created in the dashboard. This device keeps it.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim() !== '') props.onKey(key.trim());
        }}
      >
        <div class="field">
          <label for="pos-key">POS access key</label>
          <input
            id="pos-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            aria-describedby={props.refused ? 'pos-key-error' : undefined}
            aria-invalid={props.refused}
          />
          {props.refused && (
            <p id="pos-key-error" class="field-error" role="alert">
              This key was refused: it is wrong, of another terminal, or revoked.
            </p>
          )}
        </div>
        <button type="submit" class="button">
          Save on this device
        </button>
      </form>
    </main>
  );
}
