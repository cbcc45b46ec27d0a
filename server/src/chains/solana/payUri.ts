/**
 * `solana:<link>` for the payment's Solana Pay link: the plain link when one Solana chain serves the payment; with
 * several, the first named in `?chain=` (the POST needs it then), the link URL-encoded as Solana Pay requires of a
 * link with a query. Null when no Solana chain serves it.
 */
export function solanaPayUri(chains: { caip2: string }[], linkFor: (chain?: string) => string): string | null {
  const solana = chains.filter((c) => c.caip2.startsWith('solana:'));
  if (solana.length === 0) return null;
  if (solana.length === 1) return `solana:${linkFor()}`;
  return `solana:${encodeURIComponent(linkFor(solana[0]!.caip2))}`;
}
