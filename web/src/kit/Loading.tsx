import type { ComponentChildren } from 'preact';
import type { Load } from './request.js';

export function Loading(props: { what?: string }) {
  return (
    <p role="status" class="muted">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

/** The three states of a load: a polite "Loading…", the server's refusal, or the content. */
export function Loaded<T>(props: {
  load: Load<T>;
  what?: string;
  /** Said instead of the server's message when there is nothing at this id (404). */
  notFound?: string;
  /** Shown above "Loading…" or the refusal, in place of the content (a screen's heading). */
  fallback?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  if (props.load.state === 'loading') {
    return (
      <>
        {props.fallback}
        <Loading what={props.what} />
      </>
    );
  }
  if (props.load.state === 'failed') {
    const { failure } = props.load;
    return (
      <>
        {props.fallback}
        <p role="alert" class="form-error">
          {failure.status === 404 && props.notFound ? props.notFound : failure.message}
        </p>
      </>
    );
  }
  return <>{props.children(props.load.data)}</>;
}
