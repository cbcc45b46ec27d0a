import { PaygateErrorBase, readErrorAnswer } from '@paygate/client-core';
import { errorCodeValues, type components } from './generated/gateway.js';
import type { PayableOption } from './types.js';

/** The contract's error codes (`ErrorResponse.code`). */
export type ErrorCode = components['schemas']['ErrorCode'];

const knownCodes: ReadonlySet<string> = new Set(errorCodeValues);

/**
 * A non-2xx answer from the gateway. Branch on `code` (the contract's `ErrorCode`), never on `message`, which is for
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

/**
 * Why the SDK refused to go on, on the wallet's side of the wire (the server's refusals are `PaygateError`s):
 *
 * - `invalid_payment_link`: neither a gateway URL (`…/pay/pay_…`) nor a payment id;
 * - `unsupported_action`: an action `type` this SDK does not know;
 * - `unsupported_method`: a wallet RPC method this SDK does not perform, or one on a chain of another namespace;
 * - `invalid_action`: an action whose `params` do not have the form its method defines;
 * - `missing_signer`: no signer was given for a namespace the option needs;
 * - `chain_mismatch`: the EIP-1193 provider is on another chain than the action's `chain_id`;
 * - `signer_mismatch`: the Solana signer (or wallet) cannot sign the transaction: it is not one of its signers;
 * - `invalid_signer_result`: the signer answered something that is not the method's result (or changed the
 *   Solana transaction it was asked to sign);
 * - `collected_data_required`: the option requires `collectedData` and none was given;
 * - `quote_changed`: the quote was renewed at another amount and the app did not accept it;
 * - `option_unavailable`: after the quote expired, the server offers no option for the same account and asset.
 *
 * Every refusal before signing happens before anything is signed: all of an option's actions are checked first.
 */
export type PayErrorReason =
  | 'invalid_payment_link'
  | 'unsupported_action'
  | 'unsupported_method'
  | 'invalid_action'
  | 'missing_signer'
  | 'chain_mismatch'
  | 'signer_mismatch'
  | 'invalid_signer_result'
  | 'collected_data_required'
  | 'quote_changed'
  | 'option_unavailable';

export class PayError extends Error {
  override readonly name = 'PayError';
  readonly reason: PayErrorReason;
  /** The index in the option's `actions` of the action at fault, when one is. */
  readonly actionIndex: number | null;
  /** For `quote_changed`: the option the app was paying and the renewed one it did not accept (offer it again). */
  readonly quote: { previous: PayableOption; next: PayableOption } | null;

  constructor(
    reason: PayErrorReason,
    message: string,
    options: {
      actionIndex?: number | null;
      quote?: { previous: PayableOption; next: PayableOption } | null;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.actionIndex = options.actionIndex ?? null;
    this.quote = options.quote ?? null;
  }
}
