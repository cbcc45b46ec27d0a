import { PaygateErrorBase, readErrorAnswer } from '@paygate/client-core';
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
export class PaygateError extends PaygateErrorBase<ErrorCode> {
  override readonly name = 'PaygateError';

  /** Builds the error from an answer whose body openapi-fetch has already read (parsed JSON, or text). */
  static fromResponse(response: Response, body: unknown): PaygateError {
    return new PaygateError(readErrorAnswer<ErrorCode>(response, body, knownCodes));
  }
}
