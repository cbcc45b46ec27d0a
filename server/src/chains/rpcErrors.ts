/**
 * An RPC failure in one line, safe to log or answer: a client's full message also carries the request URL, which
 * may embed a provider's API key (viem's `shortMessage` leaves it out).
 */
export function shortError(err: unknown): string {
  const e = err as { shortMessage?: string; message?: string };
  return e.shortMessage ?? e.message ?? String(err);
}
