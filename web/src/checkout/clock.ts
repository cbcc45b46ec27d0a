/**
 * The server's time as the page sees it: the server's clock at render plus the time elapsed since, on the device's
 * monotonic clock. A device whose wall clock is wrong still counts down to the right moment, and a quote is renewed
 * when the server considers it stale.
 */
export function serverClock(serverTime: number): () => number {
  const loadedAt = performance.now();
  return () => serverTime + (performance.now() - loadedAt);
}
