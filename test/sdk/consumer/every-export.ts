// Every export of @paygate/sdk-merchant, used the way its type says it can be, plus what the types must refuse.
// Compiled in a consumer project against the packed package (sdkMerchant.packaging.test.ts), and here against the
// sources by the repository's type check.
import {
  createMerchantClient,
  DEFAULT_POLL_MS,
  DEFAULT_RETRY,
  errorCodeValues,
  EventProcessor,
  MAX_RETRY_AFTER_MS,
  memoryStore,
  merchantPaymentStatusValues,
  PaygateError,
  PaygateMerchant,
  paymentStatusValues,
  SDK_VERSION,
  simulatePaymentRequestToValues,
  sqlStore,
  sqlStoreSchema,
  Webhook,
  WebhookVerificationError,
  webhookEventTypeValues,
  type components,
  type CreatePaymentOptions,
  type CreatePaymentRequest,
  type CreatePaymentResponse,
  type ErrorCode,
  type FeeBalances,
  type EventProcessorOptions,
  type EventStore,
  type FetchLike,
  type HeaderRecord,
  type HeadersLike,
  type ListPaymentsFilter,
  type ListPayoutsFilter,
  type MerchantClient,
  type MerchantClientOptions,
  type MerchantPaymentStatus,
  type operations,
  type paths,
  type PaymentList,
  type PaymentListIterable,
  type PaymentSnapshot,
  type PaymentStatus,
  type PaymentStatusResponse,
  type Payout,
  type PayoutList,
  type PayoutListIterable,
  type ProcessResult,
  type RawBody,
  type ReasonOptions,
  type RefundOptions,
  type RequestOptions,
  type RetryOptions,
  type SettlementBalances,
  type SimulateTarget,
  type SqlDialect,
  type SqlQuery,
  type SqlStore,
  type SqlStoreOptions,
  type WaitForFinalOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookOptions,
  type webhooks,
  type WebhookVerificationReason,
} from '@paygate/sdk-merchant';

const fetch: FetchLike = (request) => globalThis.fetch(request);
const retry: RetryOptions = { ...DEFAULT_RETRY, retries: 1 };
const options: MerchantClientOptions = {
  baseUrl: 'https://pay.example.com',
  apiKey: 'sk_test_x',
  merchantId: 'm',
  fetch,
  retry,
};
const paygate = new PaygateMerchant(options);
const raw: MerchantClient = createMerchantClient(options);
const sameClient: MerchantClient = paygate.client;

export async function everything(signal: AbortSignal): Promise<unknown[]> {
  const request: CreatePaymentRequest = { amount: { unit: 'iso4217/USD', value: '100' }, referenceId: 'r' };
  const createOptions: CreatePaymentOptions = { idempotencyKey: 'k', signal };
  const created: CreatePaymentResponse = await paygate.createPayment(request, createOptions);
  const requestOptions: RequestOptions = { signal };
  const status: PaymentStatusResponse = await paygate.getStatus(created.paymentId, requestOptions);
  const merchantStatus: MerchantPaymentStatus = status.status;
  const payment: PaymentSnapshot = await paygate.getPayment(created.paymentId);
  const snapshotStatus: PaymentStatus = payment.status;
  const filter: ListPaymentsFilter = { limit: 10, status: 'succeeded', settled: false };
  const list: PaymentListIterable = paygate.listPayments(filter);
  for await (const p of list) p satisfies PaymentSnapshot;
  for await (const page of list.pages()) page satisfies PaymentList;
  const wait: WaitForFinalOptions = { signal, timeoutMs: DEFAULT_POLL_MS * 10 };
  const final: PaymentStatusResponse = await paygate.waitForFinal(created.paymentId, wait);
  const reason: ReasonOptions = { reason: 'why' };
  const cancelled: PaymentSnapshot = await paygate.cancel(created.paymentId, reason);
  const refunded: PaymentSnapshot = await paygate.refund(created.paymentId, reason);
  const partial: RefundOptions = { reason: 'why', amount: '500', idempotencyKey: 'refund-order-1' };
  const refundedPart: PaymentSnapshot = await paygate.refund(created.paymentId, partial);
  const fees: FeeBalances = await paygate.getFeeBalance(requestOptions);
  const balances: SettlementBalances = await paygate.getSettlementBalances();
  const payoutFilter: ListPayoutsFilter = { limit: 10 };
  const payouts: PayoutListIterable = paygate.listPayouts(payoutFilter);
  for await (const p of payouts) p satisfies Payout;
  for await (const page of payouts.pages()) page satisfies PayoutList;
  const payout: Payout = await paygate.getPayout('po_x');
  const step: SimulateTarget = simulatePaymentRequestToValues[0]!;
  const simulated: PaymentSnapshot = await paygate.simulate(created.paymentId, step);
  const rawStatus = await raw.GET('/v1/merchant/payment/{id}/status', { params: { path: { id: created.paymentId } } });
  const rawPath: keyof paths = '/v1/merchant/payment';
  const op: operations['createPayment']['requestBody']['content']['application/json'] = request;
  const schema: components['schemas']['PaymentSnapshot'] = payment;
  const hook: keyof webhooks = 'payment.succeeded';

  // The types are the contract's, not strings.
  // @ts-expect-error not a step simulate takes
  await paygate.simulate(created.paymentId, 'paid');
  // @ts-expect-error amounts are decimal strings
  await paygate.createPayment({ amount: { unit: 'iso4217/USD', value: 100 }, referenceId: 'r' });
  // @ts-expect-error not a contract error code
  const notACode: ErrorCode = 'oops';

  const codes: readonly ErrorCode[] = errorCodeValues;
  let code: ErrorCode | undefined;
  try {
    await paygate.getPayment('pay_x');
  } catch (error) {
    if (error instanceof PaygateError) {
      code = error.code;
      const detail: [number, string | null, string | null, string] = [
        error.status,
        error.requestId,
        error.rawCode,
        error.message,
      ];
      void detail;
    }
  }

  const webhookOptions: WebhookOptions = { toleranceSeconds: 60 };
  const webhook = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIXlVA9OvVp6KmYtRu/jA=', webhookOptions);
  const body: RawBody = '{}';
  const headers: WebhookHeaders = { 'webhook-id': 'evt', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
  const record: HeaderRecord = {};
  const like: HeadersLike = new Headers();
  let verified: WebhookEvent | undefined;
  try {
    verified = await webhook.verifyAsync(body, headers);
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      const why: WebhookVerificationReason = error.reason;
      void why;
    }
  }
  const type: WebhookEventType | undefined = verified?.type;
  const query: SqlQuery = async () => [];
  const dialect: SqlDialect = 'postgres';
  const sqlOptions: SqlStoreOptions = { dialect, query };
  const store: SqlStore = sqlStore(sqlOptions);
  const memory: EventStore = memoryStore();
  const processorOptions: EventProcessorOptions = { store, requireLive: true, onSucceeded: () => undefined };
  const processor = new EventProcessor(processorOptions);
  const processed: ProcessResult | undefined = verified ? await processor.process(verified) : undefined;

  return [
    sameClient,
    created,
    status,
    merchantStatus,
    snapshotStatus,
    final,
    cancelled,
    refunded,
    refundedPart,
    fees,
    balances,
    payout,
    simulated,
    rawStatus,
    rawPath,
    op,
    schema,
    hook,
    notACode,
    codes,
    code,
    record,
    like,
    type,
    memory,
    processed,
    sqlStoreSchema('sqlite'),
    merchantPaymentStatusValues,
    paymentStatusValues,
    webhookEventTypeValues,
    MAX_RETRY_AFTER_MS,
    SDK_VERSION,
  ];
}
