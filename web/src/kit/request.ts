/**
 * The one request model of the web app. `request` turns an openapi-fetch call into its data or a thrown
 * FailureError; `useLoad` reads something for a screen, `useAction` runs something the user asked for. Busy,
 * failure and the stale-answer guard live here, so a screen never writes them out by hand.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asFailure, FailureError, failureOf, NETWORK_FAILURE, type Failure } from './failure.js';

export type Answer<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** The data of an answer, or a thrown FailureError with the server's message (a network failure becomes one too). */
export async function request<T>(call: Answer<T>): Promise<T> {
  return (await requestWithResponse(call)).data;
}

/** As `request`, with the response kept (a download's file name is in its headers). */
export async function requestWithResponse<T>(call: Answer<T>): Promise<{ data: T; response: Response }> {
  let result: Awaited<Answer<T>>;
  try {
    result = await call;
  } catch {
    throw new FailureError(NETWORK_FAILURE);
  }
  if (result.error !== undefined || !result.response.ok) {
    throw new FailureError(failureOf(result.error, result.response));
  }
  return { data: result.data as T, response: result.response };
}

export type Load<T> = { state: 'loading' } | { state: 'failed'; failure: Failure } | { state: 'ready'; data: T };

/**
 * Loads once per change of `deps`, and again on `reload()`; a stale answer never overwrites a newer one. A reload
 * keeps the data shown until the new answer comes (no flash of "Loading…"). `replace` shows data the screen got
 * otherwise (the answer of a change), without reading again.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Load<T>, () => void, (data: T) => void] {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (data) => current && setResult({ state: 'ready', data }),
      (err: unknown) => current && setResult({ state: 'failed', failure: asFailure(err) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const replace = useCallback((data: T) => setResult({ state: 'ready', data }), []);
  return [result, reload, replace];
}

/** The data of a load when it is ready, else null. */
export function loaded<T>(load: Load<T>): T | null {
  return load.state === 'ready' ? load.data : null;
}

export interface Action<A extends unknown[]> {
  /** Runs the action unless one is running; its failure is kept for the form, its success clears the last one. */
  run(...args: A): Promise<void>;
  busy: boolean;
  failure: Failure | null;
  /** Shows a failure the page decided itself (a check before sending), or clears it with null. */
  setFailure(failure: Failure | null): void;
}

/**
 * Something the user asked for: `act` sends it and, on success, does what follows (close a dialog, show the
 * result). A second click while it runs does nothing. After the component is gone nothing is set.
 */
export function useAction<A extends unknown[]>(act: (...args: A) => Promise<unknown>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const running = useRef(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const run = async (...args: A) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    setFailure(null);
    try {
      await act(...args);
    } catch (err) {
      if (mounted.current) setFailure(asFailure(err));
    } finally {
      running.current = false;
      if (mounted.current) setBusy(false);
    }
  };
  return { run, busy, failure, setFailure };
}
