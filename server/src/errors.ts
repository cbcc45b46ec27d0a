import type { components } from './generated/gateway.js';

export type ErrorCode = components['schemas']['ErrorCode'];

/**
 * The HTTP status of every code in the contract (docs/decisions.md §2). Typed as a complete record, so adding a
 * code to the contract without deciding its status fails the type check.
 */
export const statusByCode: Record<ErrorCode, number> = {
  rate_limited: 429,
  invalid_params: 400,
  params_validation: 400,
  payment_not_found: 404,
  idempotency_conflict: 409,
  internal_error: 500,
  invalid_api_key: 401,
  unauthorized: 401,
  forbidden: 403,
  invalid_state: 409,
  payment_expired: 410,
  quote_expired: 409,
  missing_api_key: 401,
  missing_merchant_api_key: 401,
  missing_merchant_id: 400,
  header_not_ascii: 400,
  not_sandbox_api_key: 403,
  merchant_not_found: 404,
  merchant_exists: 409,
  api_key_not_found: 404,
  partner_not_found: 404,
  customer_not_found: 404,
  wallet_not_found: 404,
  executor_not_found: 404,
  missing_app_id: 401,
  missing_client_id: 401,
  invalid_app_id: 401,
  conflicting_auth_headers: 400,
  missing_auth_headers: 401,
  invalid_api_version: 400,
  unknown_api_version: 400,
  api_version_downgrade: 400,
  sanctioned_user: 403,
  payment_not_succeeded: 409,
  already_refunded: 409,
};

/**
 * The one error type the domain throws. `message` is public (it goes into ErrorResponse); anything that must not
 * leave the server goes into `cause`, which only the logger sees.
 */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: number; cause?: unknown; headers?: Record<string, string>; param?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    // A few codes answer more than one status (invalid_params for 404/405/413/415, internal_error for 503).
    this.status = options.status ?? statusByCode[code];
    this.headers = options.headers ?? {};
    this.param = options.param;
  }

  readonly headers: Record<string, string>;
  /**
   * The request field at fault, as ErrorResponse's `param`: a dotted path into the body
   * (`settlementAddresses.eip155:8453`) or a query or path parameter's name (`limit`). Undefined when the error is
   * not about one field.
   */
  readonly param: string | undefined;

  /** The same error, naming the field at fault (keeps the status, headers and cause). */
  withParam(param: string): ApiError {
    return new ApiError(this.code, this.message, {
      status: this.status,
      cause: this.cause,
      headers: this.headers,
      param,
    });
  }
}
