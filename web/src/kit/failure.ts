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

/** The schema validator's phrases, as sentences a merchant reads (issue 31 finding 13). */
const PHRASES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/must NOT have fewer than 1 characters?/, () => 'Fill in this field.'],
  [/must NOT have fewer than (\d+) characters/, (m) => `Use at least ${m[1]} characters.`],
  [/must NOT have more than (\d+) characters/, (m) => `Use at most ${m[1]} characters.`],
  [/must have required property/, () => 'Fill in this field.'],
  [/must match format "uri"/, () => 'Enter a full web address, such as https://shop.example.com/hooks.'],
  [/must match pattern/, () => 'This is not in the expected format.'],
  [/must be equal to one of the allowed values/, () => 'Choose one of the values offered.'],
  [/must be (string|integer|number|boolean|object|array)\b/, () => 'This value is not of the expected kind.'],
  [/must NOT have additional properties/, () => 'This field is not one the server accepts.'],
];

/**
 * A field's message as a sentence: the server's text without the field's path in front ("url: ", "body.url: ",
 * "iconUrl "), the validator's phrases rewritten, a capital first and a full stop last.
 */
export function sentence(message: string, field: string): string {
  for (const [pattern, say] of PHRASES) {
    const m = pattern.exec(message);
    if (m) return say(m);
  }
  const path = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const bare = message.replace(new RegExp(`^(?:(?:body|query|path)[./])?${path}(?::\\s*|\\s+)`), '').trim();
  const text = bare.charAt(0).toUpperCase() + bare.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** The message for a field when the failure names it, as a sentence. */
export function fieldMessage(failure: Failure | null, field: string): string | null {
  return failure?.param === field ? sentence(failure.message, field) : null;
}

/** The message shown at the top of a form: the failure's, unless it is shown beside one of `fields`. */
export function formMessage(failure: Failure | null, fields: readonly string[] = []): string | null {
  if (!failure) return null;
  return failure.param !== null && fields.includes(failure.param) ? null : failure.message;
}
