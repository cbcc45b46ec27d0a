/** What a non-2xx answer says, read the same way by every SDK. */
export interface ErrorAnswer<Code extends string> {
  code: Code;
  /** `code` as the server sent it, or null when the body was not an `ErrorResponse`. */
  rawCode: string | null;
  status: number;
  message: string;
  requestId: string | null;
}

/**
 * The fields of each SDK's `PaygateError`. Each SDK declares its own subclass, typed from its own contract, so that
 * `instanceof` tells its errors apart from another SDK's, as it did before the two shared this code.
 */
export class PaygateErrorBase<Code extends string> extends Error {
  override readonly name: string = 'PaygateError';
  readonly code: Code;
  /** `code` as the server sent it, or null when the body was not an `ErrorResponse`. */
  readonly rawCode: string | null;
  /** The HTTP status. */
  readonly status: number;
  /** The server's `X-Request-Id` for this answer: quote it when you ask for support. */
  readonly requestId: string | null;

  constructor(init: ErrorAnswer<Code>) {
    super(init.message);
    this.code = init.code;
    this.rawCode = init.rawCode;
    this.status = init.status;
    this.requestId = init.requestId;
  }
}

/**
 * Reads an answer whose body openapi-fetch has already read (parsed JSON, or text). A code outside `knownCodes` (sent
 * by a newer server), or a body that is not an `ErrorResponse` at all (an HTML 502 from a proxy), becomes
 * `internal_error`, the contract's generic code, so that callers can always branch on `code`.
 */
export function readErrorAnswer<Code extends string>(
  response: Response,
  body: unknown,
  knownCodes: ReadonlySet<string>,
): ErrorAnswer<Code | 'internal_error'> {
  const requestId = response.headers.get('X-Request-Id');
  if (isErrorBody(body)) {
    return {
      code: knownCodes.has(body.code) ? (body.code as Code) : 'internal_error',
      rawCode: body.code,
      status: response.status,
      message: body.message,
      requestId,
    };
  }
  return {
    code: 'internal_error',
    rawCode: null,
    status: response.status,
    message: response.ok
      ? `Paygate answered HTTP ${response.status} with no body.`
      : `Paygate answered HTTP ${response.status} without an error body.`,
    requestId,
  };
}

function isErrorBody(body: unknown): body is { code: string; message: string } {
  if (typeof body !== 'object' || body === null) return false;
  const { code, message } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}

/** What openapi-fetch answers instead of throwing. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx answer; anything else is thrown as the SDK's error. */
export async function dataOf<T>(
  call: Promise<FetchResult<T>>,
  toError: (response: Response, body: unknown) => Error,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  throw toError(response, error);
}
