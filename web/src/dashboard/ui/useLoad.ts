import { useCallback, useEffect, useState } from 'preact/hooks';
import { asFailure, type Failure } from '../api';

export type Load<T> = { state: 'loading' } | { state: 'failed'; failure: Failure } | { state: 'ready'; data: T };

/** Loads once per change of `deps`, and again on `reload()`; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Load<T>, () => void] {
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
  return [result, reload];
}
