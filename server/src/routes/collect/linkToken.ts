import type { Request } from 'express';

/** The link's token: the `t` query parameter when it is one string (an array or object is no token). */
export function linkTokenOf(req: Request<{ paymentId: string }>): string | null {
  const t = (req.query as Record<string, unknown>).t;
  return typeof t === 'string' ? t : null;
}
