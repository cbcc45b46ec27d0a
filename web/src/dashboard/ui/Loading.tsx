import type { ComponentChildren } from 'preact';
import type { Load } from './useLoad';

/** The three states of a load: a polite "Loading…", the server's refusal, or the content. */
export function Loaded<T>(props: { load: Load<T>; children: (data: T) => ComponentChildren }) {
  if (props.load.state === 'loading') {
    return (
      <p role="status" class="muted">
        Loading…
      </p>
    );
  }
  if (props.load.state === 'failed') {
    return (
      <p role="alert" class="form-error">
        {props.load.failure.message}
      </p>
    );
  }
  return <>{props.children(props.load.data)}</>;
}
