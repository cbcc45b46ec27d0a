/**
 * A faucet request the chain cannot serve (too much asked). The server loads this package with a dynamic import while
 * tests may hold a second copy of it, so callers recognise a refusal by `isFaucetRefusal`, never by `instanceof`.
 */
export class FaucetRefusal extends Error {
  readonly code = 'faucet_refused';
  override readonly name = 'FaucetRefusal';
}

export function isFaucetRefusal(err: unknown): err is FaucetRefusal {
  return err instanceof Error && (err as { code?: unknown }).code === 'faucet_refused';
}
