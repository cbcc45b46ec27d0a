import {
  dataOf,
  deadline,
  retryingFetch,
  sleep,
  type FetchLike,
  type FetchResult,
  type RetrySettings,
} from '@paygate/client-core';
import { buildClient, replayPolicy, type MerchantClient, type MerchantClientOptions } from './client.js';
import { PaygateError } from './errors.js';
import type { components, operations } from './generated/merchant.js';

type Schemas = components['schemas'];
export type CreatePaymentRequest = Schemas['CreatePaymentRequest'];
export type CreatePaymentResponse = Schemas['CreatePaymentResponse'];
export type PaymentStatusResponse = Schemas['PaymentStatusResponse'];
export type PaymentSnapshot = Schemas['PaymentSnapshot'];
export type PaymentList = Schemas['PaymentList'];
export type MerchantPaymentStatus = Schemas['MerchantPaymentStatus'];
export type PaymentStatus = Schemas['PaymentStatus'];
export type SimulateTarget = Schemas['SimulatePaymentRequest']['to'];
/** `limit` is the page size; `startingAfter` resumes after a payment id (the list is newest first). */
export type ListPaymentsFilter = NonNullable<operations['listPayments']['parameters']['query']>;
export type RefundPaymentResponse = Schemas['RefundPaymentResponse'];
export type FeeBalances = Schemas['FeeBalances'];
export type Payout = Schemas['Payout'];
export type PayoutList = Schemas['PayoutList'];
export type SettlementBalances = Schemas['SettlementBalances'];
/** `limit` is the page size; `startingAfter` resumes after a payout id (the list is newest first). */
export type ListPayoutsFilter = NonNullable<operations['listPayouts']['parameters']['query']>;
export type PaymentLink = Schemas['PaymentLink'];
export type PaymentLinkList = Schemas['PaymentLinkList'];
export type CreatePaymentLinkRequest = Schemas['CreatePaymentLinkRequest'];
export type UpdatePaymentLinkRequest = Schemas['UpdatePaymentLinkRequest'];
/** `limit` is the page size; `startingAfter` resumes after a link id (the list is newest first). */
export type ListPaymentLinksFilter = NonNullable<operations['listPaymentLinks']['parameters']['query']>;
export type CreateInvoiceRequest = Schemas['CreateInvoiceRequest'];
export type Invoice = Schemas['Invoice'];
export type InvoiceList = Schemas['InvoiceList'];
export type InvoiceSequence = Schemas['InvoiceSequence'];
export type UpdateInvoiceSequenceRequest = Schemas['UpdateInvoiceSequenceRequest'];
/** `limit` is the page size; `startingAfter` resumes after an invoice id (the list is newest first). */
export type ListInvoicesFilter = NonNullable<operations['listInvoices']['parameters']['query']>;

export interface RequestOptions {
  /** Aborts the call, its retries and the waits between them; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface CreatePaymentOptions extends RequestOptions {
  /**
   * Default: a fresh UUID v4 per call, reused by the call's own retries. Pass your own (e.g. derived from your order
   * id) to make retries across processes or restarts safe too: the same key and body within 24 hours answer the
   * first payment again.
   */
  idempotencyKey?: string;
}

export interface ReasonOptions extends RequestOptions {
  reason?: string;
}

export interface RefundOptions extends ReasonOptions {
  /** As `createPayment`'s: default a fresh UUID v4 per call, reused by the call's own retries. */
  idempotencyKey?: string;
  /**
   * Collected settlement only: how much to send back, in minor units of the payment's settlement asset (a decimal
   * string). Absent: all that is left. See the contract's `RefundPaymentRequest.amount`.
   */
  amount?: string;
}

export interface WaitForFinalOptions extends RequestOptions {
  /** Gives up after this long, rejecting with a `TimeoutError` DOMException. */
  timeoutMs?: number;
}

/** Async iteration yields payments across pages; `pages()` yields the pages themselves. */
export interface PaymentListIterable extends AsyncIterable<PaymentSnapshot> {
  pages(): AsyncIterable<PaymentList>;
}

/** Async iteration yields payouts across pages; `pages()` yields the pages themselves. */
export interface PayoutListIterable extends AsyncIterable<Payout> {
  pages(): AsyncIterable<PayoutList>;
}

/** Iterates a cursor-paged list: `fetchPage(startingAfter)` until `hasMore` is false. */
function pagedList<T, P extends { data: T[]; hasMore: boolean; nextCursor: string | null }>(
  first: string | undefined,
  fetchPage: (startingAfter: string | undefined) => Promise<P>,
): { pages(): AsyncGenerator<P, void, undefined>; [Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> } {
  const pages = async function* (): AsyncGenerator<P, void, undefined> {
    let startingAfter = first;
    for (;;) {
      const page = await fetchPage(startingAfter);
      yield page;
      if (!page.hasMore || page.nextCursor === null) return;
      startingAfter = page.nextCursor;
    }
  };
  return {
    pages,
    async *[Symbol.asyncIterator]() {
      for await (const page of pages()) yield* page.data;
    },
  };
}

/** Async iteration yields invoices across pages; `pages()` yields the pages themselves. */
export interface InvoiceListIterable extends AsyncIterable<Invoice> {
  pages(): AsyncIterable<InvoiceList>;
}

/** Used when an answer that is not final carries no usable `pollInMs` (the contract's own value is 2000). */
export const DEFAULT_POLL_MS = 2000;
// A floor, so a misbehaving answer cannot turn waitForFinal into a busy loop against the server.
const MIN_POLL_MS = 100;

function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  return dataOf(call, (response, body) => PaygateError.fromResponse(response, body));
}

/**
 * The merchant API as methods. Reads, `createPayment` (always keyed) and `cancel` (idempotent on the server) are
 * retried on 5xx and network failures; `refund` is retried too, see there; `simulate` only on 429. `client` is the
 * raw typed client for anything else.
 */
export class PaygateMerchant {
  readonly client: MerchantClient;
  readonly #fetch: FetchLike;
  readonly #retry: RetrySettings;

  constructor(options: MerchantClientOptions) {
    const parts = buildClient(options);
    this.client = parts.client;
    this.#fetch = parts.fetch;
    this.#retry = parts.retry;
  }

  /** Creates a payment; send the buyer to `gatewayUrl`. */
  createPayment(input: CreatePaymentRequest, options: CreatePaymentOptions = {}): Promise<CreatePaymentResponse> {
    const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return unwrap(
      this.client.POST('/v1/merchant/payment', {
        params: { header: { 'Idempotency-Key': key } },
        body: input,
        signal: options.signal,
      }),
    );
  }

  /** The merchant status (`pending`, `processing`, `succeeded`, `failed`, `expired`) and when to ask again. */
  getStatus(id: string, options: RequestOptions = {}): Promise<PaymentStatusResponse> {
    return unwrap(
      this.client.GET('/v1/merchant/payment/{id}/status', { params: { path: { id } }, signal: options.signal }),
    );
  }

  /** The full payment: the same snapshot webhooks carry, with the precise status (`cancelled` included). */
  getPayment(id: string, options: RequestOptions = {}): Promise<PaymentSnapshot> {
    return unwrap(this.client.GET('/v1/merchant/payment/{id}', { params: { path: { id } }, signal: options.signal }));
  }

  /** Newest first, fetched a page at a time as the iteration goes (`limit` per page). */
  listPayments(filter: ListPaymentsFilter = {}, options: RequestOptions = {}): PaymentListIterable {
    return pagedList<PaymentSnapshot, PaymentList>(filter.startingAfter, (startingAfter) =>
      unwrap(
        this.client.GET('/v1/merchant/payments', {
          params: { query: { ...filter, startingAfter } },
          signal: options.signal,
        }),
      ),
    );
  }

  /**
   * Direct settlement: the fees you owe the operator for the key's mode, per chain and asset (accrued, invoiced,
   * outstanding; exact decimal strings of minor units).
   */
  getFeeBalance(options: RequestOptions = {}): Promise<FeeBalances> {
    return unwrap(this.client.GET('/v1/merchant/fees', { signal: options.signal }));
  }

  /** Collected settlement: what the operator owes you and has not paid out yet, per chain and asset. */
  getSettlementBalances(options: RequestOptions = {}): Promise<SettlementBalances> {
    return unwrap(this.client.GET('/v1/merchant/settlements', { signal: options.signal }));
  }

  /** Collected settlement: your payouts, newest first, each with the payments it covered, a page at a time. */
  listPayouts(filter: ListPayoutsFilter = {}, options: RequestOptions = {}): PayoutListIterable {
    return pagedList<Payout, PayoutList>(filter.startingAfter, (startingAfter) =>
      unwrap(
        this.client.GET('/v1/merchant/payouts', {
          params: { query: { ...filter, startingAfter } },
          signal: options.signal,
        }),
      ),
    );
  }

  /** One payout with the payments it covered. */
  getPayout(id: string, options: RequestOptions = {}): Promise<Payout> {
    return unwrap(this.client.GET('/v1/merchant/payouts/{id}', { params: { path: { id } }, signal: options.signal }));
  }

  /**
   * Creates a reusable payment link (`url`, `/l/{id}`): each visit creates a payment from it. Not retried on an
   * ambiguous failure (a create has no idempotency key): list the links to see whether it was made.
   */
  createPaymentLink(input: CreatePaymentLinkRequest, options: RequestOptions = {}): Promise<PaymentLink> {
    return unwrap(this.client.POST('/v1/merchant/payment-links', { body: input, signal: options.signal }));
  }

  /** One payment link with its state, uses and totals. */
  getPaymentLink(id: string, options: RequestOptions = {}): Promise<PaymentLink> {
    return unwrap(
      this.client.GET('/v1/merchant/payment-links/{linkId}', {
        params: { path: { linkId: id } },
        signal: options.signal,
      }),
    );
  }

  /** Your payment links of the key's mode, newest first, a page at a time. */
  listPaymentLinks(
    filter: ListPaymentLinksFilter = {},
    options: RequestOptions = {},
  ): AsyncIterable<PaymentLink> & { pages(): AsyncIterable<PaymentLinkList> } {
    return pagedList<PaymentLink, PaymentLinkList>(filter.startingAfter, (startingAfter) =>
      unwrap(
        this.client.GET('/v1/merchant/payment-links', {
          params: { query: { ...filter, startingAfter } },
          signal: options.signal,
        }),
      ),
    );
  }

  /** Changes a link's description, metadata, redirects, expiry or use limit, or reactivates it. */
  updatePaymentLink(id: string, change: UpdatePaymentLinkRequest, options: RequestOptions = {}): Promise<PaymentLink> {
    return unwrap(
      this.client.PATCH('/v1/merchant/payment-links/{linkId}', {
        params: { path: { linkId: id } },
        body: change,
        signal: options.signal,
      }),
    );
  }

  /** Stops a link from creating payments (idempotent). */
  deactivatePaymentLink(id: string, options: RequestOptions = {}): Promise<PaymentLink> {
    return unwrap(
      this.client.POST('/v1/merchant/payment-links/{linkId}/deactivate', {
        params: { path: { linkId: id } },
        signal: options.signal,
      }),
    );
  }

  /**
   * Creates an invoice numbered from your sequence; send the buyer its `url`. Not retried: a create has no
   * idempotency key, and a retry after an ambiguous failure could number a second invoice.
   */
  createInvoice(input: CreateInvoiceRequest, options: RequestOptions = {}): Promise<Invoice> {
    return unwrap(this.client.POST('/v1/merchant/invoices', { body: input, signal: options.signal }));
  }

  /** One invoice, its status derived now (`open`, `partially_paid`, `paid`, `overdue`, `void`) and its payments. */
  getInvoice(id: string, options: RequestOptions = {}): Promise<Invoice> {
    return unwrap(this.client.GET('/v1/merchant/invoices/{id}', { params: { path: { id } }, signal: options.signal }));
  }

  /** Newest first, fetched a page at a time as the iteration goes (`limit` per page). */
  listInvoices(filter: ListInvoicesFilter = {}, options: RequestOptions = {}): InvoiceListIterable {
    return pagedList<Invoice, InvoiceList>(filter.startingAfter, (startingAfter) =>
      unwrap(
        this.client.GET('/v1/merchant/invoices', {
          params: { query: { ...filter, startingAfter } },
          signal: options.signal,
        }),
      ),
    );
  }

  /** Voids an unpaid invoice (idempotent); its page then cannot pay it. */
  voidInvoice(id: string, options: RequestOptions = {}): Promise<Invoice> {
    return unwrap(
      this.client.POST('/v1/merchant/invoices/{id}/void', { params: { path: { id } }, signal: options.signal }),
    );
  }

  /** The prefix and the next number of your invoices in the key's mode. */
  getInvoiceSequence(options: RequestOptions = {}): Promise<InvoiceSequence> {
    return unwrap(this.client.GET('/v1/merchant/invoice-sequence', { signal: options.signal }));
  }

  /** A new prefix and/or next number (only forward). */
  updateInvoiceSequence(input: UpdateInvoiceSequenceRequest, options: RequestOptions = {}): Promise<InvoiceSequence> {
    return unwrap(this.client.POST('/v1/merchant/invoice-sequence', { body: input, signal: options.signal }));
  }

  /**
   * Polls the status, waiting `pollInMs` of each answer between polls, until it is final; answers the final status.
   * Use it where a webhook cannot reach you, or to show the outcome on your return page; webhooks remain the way to
   * learn every outcome.
   */
  async waitForFinal(id: string, options: WaitForFinalOptions = {}): Promise<PaymentStatusResponse> {
    const { signal, dispose } = deadline(options.signal, options.timeoutMs, 'waitForFinal');
    try {
      for (;;) {
        signal.throwIfAborted();
        const status = await this.getStatus(id, { signal });
        if (status.isFinal) return status;
        const wait = typeof status.pollInMs === 'number' ? status.pollInMs : DEFAULT_POLL_MS;
        await sleep(Math.max(MIN_POLL_MS, wait), signal);
      }
    } finally {
      dispose();
    }
  }

  /** Cancels an unpaid payment. Idempotent on the server: an already cancelled payment answers unchanged. */
  cancel(id: string, options: ReasonOptions = {}): Promise<PaymentSnapshot> {
    return unwrap(
      this.client.POST('/v1/merchant/payment/{id}/cancel', {
        params: { path: { id } },
        body: options.reason === undefined ? {} : { reason: options.reason },
        signal: options.signal,
        fetch: retryingFetch(this.#fetch, this.#retry, replayPolicy('idempotent')),
      }),
    );
  }

  /**
   * Records that you refunded a succeeded payment off-platform (no funds move). The server answers a repeat with
   * `409 already_refunded`, so a retry after an attempt that may have been applied (a 5xx or a network failure) can
   * see its own refund as that error: then the payment is read, and answered if it is refunded. That is also the
   * answer when someone else refunded it meanwhile; compare `refunded.reason` if that matters to you.
   */
  async refund(id: string, options: RefundOptions = {}): Promise<PaymentSnapshot> {
    let mayHaveApplied = false;
    // Keyed like createPayment, so a retry is replayed by the server rather than refunded again.
    const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    try {
      return await unwrap(
        this.client.POST('/v1/merchant/payment/{id}/refund', {
          params: { path: { id }, header: { 'Idempotency-Key': key } },
          body: {
            ...(options.reason === undefined ? {} : { reason: options.reason }),
            ...(options.amount === undefined ? {} : { amount: options.amount }),
          },
          signal: options.signal,
          fetch: retryingFetch(
            this.#fetch,
            this.#retry,
            replayPolicy('idempotent', () => (mayHaveApplied = true)),
          ),
        }),
      );
    } catch (error) {
      if (mayHaveApplied && error instanceof PaygateError && error.code === 'already_refunded') {
        const payment = await this.getPayment(id, { signal: options.signal });
        if (payment.refunded !== null) return payment;
      }
      throw error;
    }
  }

  /**
   * Test mode (an `sk_test_` key): moves a test payment one step, as a paying buyer would, with real webhooks. Not
   * retried after a 5xx or a network failure, because a repeated step answers `409 invalid_state`.
   */
  simulate(id: string, to: SimulateTarget, options: RequestOptions = {}): Promise<PaymentSnapshot> {
    return unwrap(
      this.client.POST('/v1/merchant/test/payment/{id}/simulate', {
        params: { path: { id } },
        body: { to },
        signal: options.signal,
      }),
    );
  }
}
