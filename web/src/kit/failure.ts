/**
 * The one failure model of the web app: what a refused request tells the user. The contract's ErrorResponse gives
 * the message and the field at fault (`param`, a dotted request path); a throttle adds its wait (`Retry-After`). A
 * failure without a readable body (the network, a proxy) gets a generic sentence, never a status dump.
 */

export interface Failure {
  status: number;
  code: string;
  message: string;
  /** The request field at fault, as a dotted path (`url`, `settlementAddresses.eip155:8453`), when the server named one. */
  param: string | null;
  /** Seconds from `Retry-After`, when the answer had one. */
  retryAfter: number | null;
}

/** Thrown by `request` so that `useLoad` and `useAction` can show it. */
export class FailureError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  param?: unknown;
}

/** The failure of an answer (openapi-fetch's `error` set, or a non-2xx response). */
export function failureOf(error: unknown, response: Response): Failure {
  const body = (typeof error === 'object' && error !== null ? error : {}) as ErrorBody;
  const retry = Number(response.headers.get('Retry-After'));
  return {
    status: response.status,
    code: typeof body.code === 'string' ? body.code : 'internal_error',
    message:
      typeof body.message === 'string' && body.message !== ''
        ? body.message
        : `The server answered ${response.status}. Try again.`,
    param: typeof body.param === 'string' && body.param !== '' ? body.param : null,
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  };
}

export const NETWORK_FAILURE: Failure = {
  status: 0,
  code: 'network',
  message: 'The server could not be reached. Check your connection and try again.',
  param: null,
  retryAfter: null,
};

/** A failure the page itself decides (a form checked before it is sent): a sentence, and the field it is about. */
export function localFailure(message: string, param: string | null = null): Failure {
  return { status: 0, code: 'params_validation', message, param, retryAfter: null };
}

/** Any thrown value as a Failure (an unexpected one says so without details). */
export function asFailure(err: unknown): Failure {
  if (err instanceof FailureError) return err.failure;
  return {
    status: 0,
    code: 'internal_error',
    message: 'Something went wrong. Try again.',
    param: null,
    retryAfter: null,
  };
}

/** The message for a field when the failure names it. */
export function fieldMessage(failure: Failure | null, field: string): string | null {
  return failure?.param === field ? failure.message : null;
}

/** The message shown at the top of a form: the failure's, unless it is shown beside one of `fields`. */
export function formMessage(failure: Failure | null, fields: readonly string[] = []): string | null {
  if (!failure) return null;
  return failure.param !== null && fields.includes(failure.param) ? null : failure.message;
}
