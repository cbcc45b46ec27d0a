/**
 * The server's errors as the screens show them: `ErrorResponse.message` beside the field named by `param` (a dotted
 * request path such as `url`), else at the top of the form. A failure without a readable body (the network, a proxy)
 * becomes a generic message; the code is kept for the rare branch a screen needs (404 = nothing there).
 */

export interface Failure {
  status: number;
  code: string;
  message: string;
  /** The request field at fault, when the server named one. */
  param?: string;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  param?: unknown;
}

export function failureOf(error: unknown, response: Response | undefined): Failure {
  const body = (typeof error === 'object' && error !== null ? error : {}) as ErrorBody;
  const status = response?.status ?? 0;
  return {
    status,
    code: typeof body.code === 'string' ? body.code : 'internal_error',
    message:
      typeof body.message === 'string' && body.message !== ''
        ? body.message
        : status === 0
          ? 'The server could not be reached. Check your connection and try again.'
          : `The server answered ${status}. Try again.`,
    ...(typeof body.param === 'string' && body.param !== '' ? { param: body.param } : {}),
  };
}

/** A network error thrown by fetch, as a failure. */
export function thrownFailure(error: unknown): Failure {
  return failureOf({ message: error instanceof Error ? `The request failed: ${error.message}` : undefined }, undefined);
}

/** The message for a field when the failure names it; the form-level message otherwise. */
export function fieldMessage(failure: Failure | null, field: string): string | null {
  return failure?.param === field ? failure.message : null;
}

/** The message shown at the top of a form: the failure's, unless it is shown beside one of `fields`. */
export function formMessage(failure: Failure | null, fields: readonly string[]): string | null {
  if (!failure) return null;
  return failure.param !== undefined && fields.includes(failure.param) ? null : failure.message;
}
