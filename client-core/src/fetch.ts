/** The fetch the SDK calls: the platform's, or one injected by the caller (tests, proxies, instrumentation). */
export type FetchLike = (request: Request) => Promise<Response>;

/** The caller's fetch, or the platform's. */
export function fetchOrPlatform(given: FetchLike | undefined): FetchLike {
  // Looked up per call, so a fetch patched after construction (instrumentation, test interceptors) is used.
  return given ?? ((request) => globalThis.fetch(request));
}
