import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isEndpointFailure } from '../chains/index.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ApiError } from '../errors.js';

interface ValidatorError {
  status: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
}

function isValidatorError(err: unknown): err is ValidatorError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as ValidatorError).status === 'number' &&
    Array.isArray((err as ValidatorError).errors)
  );
}

interface BodyParserError {
  type: string;
  status?: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as BodyParserError).type === 'string' &&
    typeof (err as BodyParserError).status === 'number'
  );
}

function describeValidation(err: ValidatorError): string {
  const first = err.errors?.[0];
  if (!first) return 'The request is invalid.';
  const path = (first.path ?? '')
    .replace(/^\./, '')
    .replace(/^\/(body|query|headers|params)\/?/, '$1.')
    .replace(/\//g, '.')
    .replace(/\.$/, '');
  const more = (err.errors?.length ?? 0) > 1 ? ` (and ${err.errors!.length - 1} more)` : '';
  return `${path ? `${path}: ` : ''}${first.message ?? 'is invalid'}${more}`;
}

/**
 * The request field the first validation error is about, as ErrorResponse's `param`: the validator's JSON pointer
 * (`/body/settlementAddresses/eip155:8453`, `/query/limit`, `/path/paymentId`) without its location, as a dotted
 * path (`settlementAddresses.eip155:8453`, `limit`, `paymentId`). Undefined for an error about the whole body.
 */
export function paramOfValidation(err: ValidatorError): string | undefined {
  const path = err.errors?.[0]?.path;
  if (!path || !path.startsWith('/')) return undefined;
  const segments = path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (!['body', 'query', 'path', 'params', 'headers'].includes(segments[0] ?? '')) return undefined;
  const rest = segments.slice(1).filter((s) => s !== '');
  return rest.length === 0 ? undefined : rest.join('.');
}

/**
 * docs/decisions.md §2: a request that cannot be read (an unknown query parameter, a body that is not an object) is
 * `invalid_params`; a readable one that breaks a rule is `params_validation`.
 */
function isUnreadable(err: ValidatorError): boolean {
  return (err.errors ?? []).some(
    (e) => /^Unknown query parameter/.test(e.message ?? '') || (e.path === '/body' && e.message === 'must be object'),
  );
}

/**
 * A path whose percent-encoding is not UTF-8 (`/v1/merchant/payment/pay_%E0%A4%A`): the validator's path match says
 * "malformed uri", Express's router (routes outside the contracts, such as the collect form) throws a URIError with
 * status 400. Either way the request cannot be read, so it is `invalid_params`, never a lookup of some id.
 */
function isUndecodablePath(err: unknown): boolean {
  if (err instanceof URIError) return (err as URIError & { status?: number }).status === 400;
  return isValidatorError(err) && err.status === 400 && (err.errors ?? []).some((e) => e.message === "malformed uri'");
}

const undecodablePath = () => new ApiError('invalid_params', 'The path is not valid percent-encoded UTF-8.');

/** Turns whatever was thrown into an ApiError with a code from the contract. */
export function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (isUndecodablePath(err)) return undecodablePath();
  if (isDatabaseUnavailable(err)) {
    // Not our code's fault and not the request's: retry soon (the SDKs do on 503). Logged as a warning with its cause.
    return new ApiError('internal_error', 'The database is unavailable; retry shortly.', {
      status: 503,
      headers: { 'Retry-After': '1' },
      cause: err,
    });
  }
  if (isEndpointFailure(err)) {
    // No RPC endpoint of the chain answered (§27.18): an outage, not our bug and not the request's. Nothing was
    // recorded, so the wallet retries the same request, as it does for an unreachable chain's options (§27.9).
    return new ApiError('internal_error', 'The network is temporarily unavailable; retry in a moment.', {
      status: 503,
      headers: { 'Retry-After': '5' },
      cause: err,
    });
  }
  if (isBodyParserError(err)) {
    switch (err.type) {
      case 'entity.parse.failed':
        return new ApiError('invalid_params', 'The body is not valid JSON.');
      case 'entity.too.large':
        return new ApiError('invalid_params', 'The body is larger than the limit.', { status: 413 });
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new ApiError('invalid_params', 'The body encoding is not supported; send UTF-8 JSON.', { status: 415 });
      default:
        return null;
    }
  }
  if (isValidatorError(err)) {
    switch (err.status) {
      case 400:
        return new ApiError(isUnreadable(err) ? 'invalid_params' : 'params_validation', describeValidation(err), {
          param: paramOfValidation(err),
        });
      case 404:
        return new ApiError('invalid_params', 'No such route.', { status: 404 });
      case 405:
        return new ApiError('invalid_params', 'This method is not allowed on this route.', { status: 405 });
      case 413:
        return new ApiError('invalid_params', 'The body is larger than the limit.', { status: 413 });
      case 415:
        return new ApiError('invalid_params', 'Unsupported content type; send application/json.', { status: 415 });
      default:
        // 500 from the validator is a response that breaks the contract: our bug, logged in full below.
        return null;
    }
  }
  return null;
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('invalid_params', `No route ${req.method} ${req.path}.`, { status: 404 }));
};

/** Last in the chain: every error leaves as an ErrorResponse, and unknown errors never leak detail. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const log = res.locals.log ?? logger;
    if (res.locals.timedOut && res.headersSent) {
      // The timeout already answered 503; the handler's late answer (or its failure to send it) is expected.
      log.debug({ err }, 'answer after the request timed out dropped');
      return;
    }
    const apiError = toApiError(err);
    if (apiError === null) {
      log.error({ err, method: req.method, url: req.path }, 'unhandled error');
    } else if (apiError.cause !== undefined) {
      log.warn({ err: apiError.cause, code: apiError.code }, apiError.message);
    }
    const answer = apiError ?? new ApiError('internal_error', 'An internal error occurred.');
    if (res.headersSent) return;
    const body: { code: string; message: string; param?: string } = { code: answer.code, message: answer.message };
    if (answer.param !== undefined) body.param = answer.param;
    res.status(answer.status).set(answer.headers).json(body);
  };
}
