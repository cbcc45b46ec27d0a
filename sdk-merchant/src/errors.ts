import { errorCodeValues, type components } from './generated/merchant.js';

/** The contract's error codes (`ErrorResponse.code`). */
export type ErrorCode = components['schemas']['ErrorCode'];

const knownCodes: ReadonlySet<string> = new Set(errorCodeValues);

/**
 * A non-2xx answer from Paygate. Branch on `code` (the contract's `ErrorCode`), never on `message`, which is for
 * humans and may change.
 *
 * A code this SDK version does not know (sent by a newer server), or an answer that is not an `ErrorResponse` at all
 * (an HTML 502 from a proxy), is reported as `internal_error`, the contract's generic code; `rawCode` keeps what was
 * received and `status` still tells the kind of failure.
 */
export class PaygateError extends Error {
  override readonly name = 'PaygateError';
  readonly code: ErrorCode;
  /** `code` as the server sent it, or null when the body was not an `ErrorResponse`. */
  readonly rawCode: string | null;
  /** The HTTP status. */
  readonly status: number;
  /** The server's `X-Request-Id` for this answer: quote it when you ask for support. */
  readonly requestId: string | null;

  constructor(init: {
    code: ErrorCode;
    rawCode: string | null;
    status: number;
    message: string;
    requestId: string | null;
  }) {
    super(init.message);
    this.code = init.code;
    this.rawCode = init.rawCode;
    this.status = init.status;
    this.requestId = init.requestId;
  }

  /** Builds the error from an answer whose body openapi-fetch has already read (parsed JSON, or text). */
  static fromResponse(response: Response, body: unknown): PaygateError {
    const requestId = response.headers.get('X-Request-Id');
    if (isErrorBody(body)) {
      return new PaygateError({
        code: knownCodes.has(body.code) ? (body.code as ErrorCode) : 'internal_error',
        rawCode: body.code,
        status: response.status,
        message: body.message,
        requestId,
      });
    }
    return new PaygateError({
      code: 'internal_error',
      rawCode: null,
      status: response.status,
      message: response.ok
        ? `Paygate answered HTTP ${response.status} with no body.`
        : `Paygate answered HTTP ${response.status} without an error body.`,
      requestId,
    });
  }
}

function isErrorBody(body: unknown): body is { code: string; message: string } {
  if (typeof body !== 'object' || body === null) return false;
  const { code, message } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}
