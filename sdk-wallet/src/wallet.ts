import { dataOf, deadline, type FetchResult, type RetrySettings } from '@paygate/client-core';
import { buildClient, type GatewayClient, type GatewayClientOptions } from './client.js';
import { PayError, PaygateError } from './errors.js';
import { isPaymentId, parsePaymentLink } from './links.js';
import { pay, type PayOptions } from './pay.js';
import type { Signers } from './signers.js';
import type {
  ConfirmPaymentRequest,
  FetchActionRequest,
  FetchActionResponse,
  GetPaymentOptionsRequest,
  GetPaymentOptionsResponse,
  PayableOption,
  PaymentInfo,
  PaymentOptions,
  PaymentStatusResponse,
  CancelPaymentResponse,
} from './types.js';

export type PaygateWalletOptions = GatewayClientOptions & {
  /** The clock that quote expiry (`expiresAt`) is compared with, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
};

export interface RequestOptions {
  /** Aborts the call, its retries and the waits between them; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface StatusOptions extends RequestOptions {
  /** Long polling: let the server hold the request up to this long (0–25000 ms) for a final status. Default 0. */
  maxPollMs?: number;
}

export interface OptionsRequestOptions extends RequestOptions {
  /** Ask for the payment's information in `info` too (saves a getPayment call). */
  includePaymentInfo?: boolean;
}

export interface WaitForFinalOptions extends RequestOptions {
  /** How long each status request may wait for a final status (0–25000). Default `DEFAULT_MAX_POLL_MS`. */
  maxPollMs?: number;
  /** Gives up after this long, rejecting with a `TimeoutError` DOMException. */
  timeoutMs?: number;
}

/** Exactly one of `paymentId` (a bare `pay_…` id) or `paymentLink` (a gateway URL, or a bare id too). */
export type GetOptionsInput = (
  { paymentId: string; paymentLink?: never } | { paymentLink: string; paymentId?: never }
) & {
  /** The buyer's CAIP-10 accounts: every one the wallet has keys for (at most 50). */
  accounts: string[];
  /** Ids of earlier options that this call replaces. */
  refresh?: string[];
  includePaymentInfo?: boolean;
  signal?: AbortSignal;
};

/** Below the contract's 25000 ms ceiling, so a long poll always ends in an answer well within timeouts. */
export const DEFAULT_MAX_POLL_MS = 20_000;
/** Between polls, when an answer that is not final carries no `pollInMs` (the contract's own value is 2000). */
export const DEFAULT_POLL_MS = 2000;

function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  return dataOf(call, (response, body) => PaygateError.fromResponse(response, body));
}

/**
 * The gateway API as methods, and the whole payment flow (`getOptions`, then `pay`). Every call is retried on 5xx,
 * 429 and network failures, which is safe for every gateway operation; `client` is the raw typed client.
 */
export class PaygateWallet {
  readonly client: GatewayClient;
  readonly #retry: RetrySettings;
  readonly #now: () => number;

  constructor(options: PaygateWalletOptions) {
    const parts = buildClient(options);
    this.client = parts.client;
    this.#retry = parts.retry;
    this.#now = options.now ?? Date.now;
  }

  /** What the buyer is paying: status, fiat amount, expiry, merchant. */
  getPayment(paymentId: string, options: RequestOptions = {}): Promise<PaymentInfo> {
    return unwrap(
      this.client.GET('/v1/gateway/payment/{id}', { params: { path: { id: paymentId } }, signal: options.signal }),
    );
  }

  /** The status; with `maxPollMs`, the server answers as soon as it is final or when the time is up. */
  getPaymentStatus(paymentId: string, options: StatusOptions = {}): Promise<PaymentStatusResponse> {
    return unwrap(
      this.client.GET('/v1/gateway/payment/{id}/status', {
        params: { path: { id: paymentId }, query: options.maxPollMs ? { maxPollMs: options.maxPollMs } : {} },
        signal: options.signal,
      }),
    );
  }

  /** Cancels the payment for the buyer. Idempotent: a cancelled payment answers cancelled again. */
  cancelPayment(paymentId: string, options: RequestOptions = {}): Promise<CancelPaymentResponse> {
    return unwrap(
      this.client.POST('/v1/gateway/payment/{id}/cancel', {
        params: { path: { id: paymentId } },
        body: {},
        signal: options.signal,
      }),
    );
  }

  /** The raw options call: the contract's answer, unchanged (see `getOptions` for the flow's form). */
  getPaymentOptions(
    paymentId: string,
    body: GetPaymentOptionsRequest,
    options: OptionsRequestOptions = {},
  ): Promise<GetPaymentOptionsResponse> {
    return unwrap(
      this.client.POST('/v1/gateway/payment/{id}/options', {
        params: {
          path: { id: paymentId },
          query: options.includePaymentInfo ? { includePaymentInfo: true } : {},
        },
        body,
        signal: options.signal,
      }),
    );
  }

  /** Resolves a `build` action into the wallet RPC calls to perform in its place. */
  fetchAction(paymentId: string, body: FetchActionRequest, options: RequestOptions = {}): Promise<FetchActionResponse> {
    return unwrap(
      this.client.POST('/v1/gateway/payment/{id}/fetch', {
        params: { path: { id: paymentId } },
        body,
        signal: options.signal,
      }),
    );
  }

  /** Confirms an option with one result per action. Safe to repeat with the same results. */
  confirmPayment(
    paymentId: string,
    body: ConfirmPaymentRequest,
    options: StatusOptions = {},
  ): Promise<PaymentStatusResponse> {
    return unwrap(
      this.client.POST('/v1/gateway/payment/{id}/confirm', {
        params: { path: { id: paymentId }, query: options.maxPollMs ? { maxPollMs: options.maxPollMs } : {} },
        body,
        signal: options.signal,
      }),
    );
  }

  /**
   * The options that can pay a payment, from a payment link (the merchant's `gatewayUrl`, `…/pay/pay_…`) or id, for
   * the buyer's accounts. Each option carries its `paymentId`, ready for `pay`.
   */
  async getOptions(input: GetOptionsInput): Promise<PaymentOptions> {
    const paymentId = paymentIdOf(input);
    const answer = await this.getPaymentOptions(
      paymentId,
      { accounts: input.accounts, ...(input.refresh ? { refresh: input.refresh } : {}) },
      { includePaymentInfo: input.includePaymentInfo, signal: input.signal },
    );
    const collectData = answer.collectData ?? null;
    return {
      paymentId,
      options: (answer.options ?? []).map((option) => ({ ...option, paymentId, paymentCollectData: collectData })),
      collectData,
      info: answer.info ?? null,
      unavailable: answer.unavailable ?? [],
    };
  }

  /**
   * Pays an option: checks every action (methods, signers) before anything is signed, renews an expired quote (asking
   * `onQuoteChange` before signing another amount), resolves `build` actions, performs each action with the signer
   * of its namespace, confirms, and long-polls the status until it is final, which it answers.
   */
  pay(option: PayableOption, signers: Signers, options: PayOptions = {}): Promise<PaymentStatusResponse> {
    return pay(
      {
        getOptions: (input) => this.getOptions(input),
        fetchAction: (id, body, o) => this.fetchAction(id, body, o),
        confirmPayment: (id, body, o) => this.confirmPayment(id, body, o),
        waitForFinal: (id, o) => this.waitForFinal(id, o),
        now: this.#now,
      },
      option,
      signers,
      options,
    );
  }

  /** Long-polls the status (`maxPollMs` per request) until it is final, and answers it. */
  async waitForFinal(paymentId: string, options: WaitForFinalOptions = {}): Promise<PaymentStatusResponse> {
    const maxPollMs = options.maxPollMs ?? DEFAULT_MAX_POLL_MS;
    const { signal, dispose } = deadline(options.signal, options.timeoutMs, 'waitForFinal');
    try {
      for (;;) {
        signal.throwIfAborted();
        const started = performance.now();
        const status = await this.getPaymentStatus(paymentId, { maxPollMs, signal });
        if (status.isFinal) return status;
        // An answer that came back early without a final status (maxPollMs 0, a proxy cutting long requests) is
        // followed by a wait of pollInMs, so that this never turns into a busy loop against the server.
        const pollInMs = typeof status.pollInMs === 'number' ? status.pollInMs : DEFAULT_POLL_MS;
        const wait = pollInMs - (performance.now() - started);
        if (wait > 0) await this.#retry.sleep(wait, signal);
      }
    } finally {
      dispose();
    }
  }
}

function paymentIdOf(input: GetOptionsInput): string {
  const { paymentId, paymentLink } = input as { paymentId?: unknown; paymentLink?: unknown };
  if ((paymentId === undefined) === (paymentLink === undefined)) {
    throw new TypeError('getOptions: give exactly one of paymentId and paymentLink');
  }
  if (paymentLink !== undefined) return parsePaymentLink(paymentLink as string);
  if (!isPaymentId(paymentId)) {
    throw new PayError(
      'invalid_payment_link',
      `Not a payment id (pay_ and 24 letters or digits): "${String(paymentId)}".`,
    );
  }
  return paymentId;
}
