// Every export of @paygate/sdk-wallet, used the way its type says it can be, plus what the types must refuse.
// Compiled in a consumer project against the packed package (sdkWallet.packaging.test.ts), with Node's types and
// with the DOM's only, and here against the sources by the repository's type check.
import { generateKeyPairSigner, type TransactionSigner } from '@solana/kit';
import {
  buildActionItemTypeValues,
  collectDataFieldTypeValues,
  collectDataOf,
  createGatewayClient,
  DEFAULT_MAX_POLL_MS,
  DEFAULT_POLL_MS,
  DEFAULT_RETRY,
  detectPlatform,
  errorCodeValues,
  isPaymentId,
  MAX_RETRY_AFTER_MS,
  parsePaymentLink,
  PayError,
  PaygateError,
  PaygateWallet,
  paymentStatusValues,
  performWalletRpc,
  SDK_NAME,
  SDK_VERSION,
  SUPPORTED_METHODS,
  SVC_VERSION,
  walletRpcActionItemTypeValues,
  type Action,
  type Amount,
  type CollectData,
  type components,
  type ConfirmPaymentRequest,
  type ConfirmResult,
  type Eip1193Provider,
  type ErrorCode,
  type FetchActionRequest,
  type FetchActionResponse,
  type FetchLike,
  type GatewayClient,
  type GatewayClientOptions,
  type GatewayCredentials,
  type GetOptionsInput,
  type GetPaymentOptionsRequest,
  type GetPaymentOptionsResponse,
  type Namespace,
  type operations,
  type OptionsRequestOptions,
  type paths,
  type PayableOption,
  type PayErrorReason,
  type PaygateWalletOptions,
  type PaymentInfo,
  type PaymentOption,
  type PaymentOptions,
  type PaymentStatus,
  type PaymentStatusResponse,
  type PayOptions,
  type RequestOptions,
  type RetryOptions,
  type Signers,
  type Sleep,
  type SolanaSigner,
  type SolanaSignTransactionFeature,
  type SolanaStandardWallet,
  type StandardWalletAccount,
  type StatusOptions,
  type WaitForFinalOptions,
  type WalletRpcAction,
} from '@paygate/sdk-wallet';

const fetch: FetchLike = (request) => globalThis.fetch(request);
const sleep: Sleep = async (_ms, signal) => signal.throwIfAborted();
const retry: RetryOptions = { ...DEFAULT_RETRY, retries: 1, random: () => 0.5, sleep };
const credentials: GatewayCredentials = { appId: 'app_test_x', clientId: 'install-1' };
const clientOptions: GatewayClientOptions = { ...credentials, baseUrl: 'https://pay.example.com', fetch, retry };
const options: PaygateWalletOptions = {
  baseUrl: 'https://pay.example.com',
  apiKey: 'wk_test_x',
  svcVersion: SVC_VERSION,
  sdkPlatform: detectPlatform(),
  now: () => Date.now(),
};
const wallet = new PaygateWallet(options);
const raw: GatewayClient = createGatewayClient(clientOptions);
const sameClient: GatewayClient = wallet.client;

// A wallet-standard wallet, as @wallet-standard/base types it (a local copy of its shape).
interface WalletAccount {
  readonly address: string;
  readonly publicKey: Uint8Array;
  readonly chains: readonly `${string}:${string}`[];
  readonly features: readonly `${string}:${string}`[];
}
interface Wallet {
  readonly version: '1.0.0';
  readonly name: string;
  readonly chains: readonly `${string}:${string}`[];
  readonly features: Readonly<Record<`${string}:${string}`, unknown>>;
  readonly accounts: readonly WalletAccount[];
}

export async function everything(signal: AbortSignal, ethereum: Eip1193Provider, standard: Wallet): Promise<unknown[]> {
  const solana: TransactionSigner = await generateKeyPairSigner();
  const standardWallet: SolanaStandardWallet = standard;
  const account: StandardWalletAccount | undefined = standard.accounts[0];
  const feature = standard.features['solana:signTransaction'] as SolanaSignTransactionFeature | undefined;
  const signers: Signers = { eip155: ethereum, solana };
  const other: SolanaSigner = standardWallet;
  const namespace: Namespace = 'solana';

  const paymentId = parsePaymentLink('https://pay.example.com/pay/pay_7Qz3kP9xWm2LrT8vN4bY6cJd');
  const request: RequestOptions = { signal };
  const info: PaymentInfo = await wallet.getPayment(paymentId, request);
  const statusOptions: StatusOptions = { maxPollMs: DEFAULT_MAX_POLL_MS, signal };
  const status: PaymentStatusResponse = await wallet.getPaymentStatus(paymentId, statusOptions);
  const statusName: PaymentStatus = status.status;
  const cancelled: PaymentStatusResponse = await wallet.cancelPayment(paymentId);
  const body: GetPaymentOptionsRequest = { accounts: ['eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8'] };
  const optionsRequest: OptionsRequestOptions = { includePaymentInfo: true, signal };
  const answer: GetPaymentOptionsResponse = await wallet.getPaymentOptions(paymentId, body, optionsRequest);
  const input: GetOptionsInput = { paymentLink: 'pay_7Qz3kP9xWm2LrT8vN4bY6cJd', accounts: body.accounts, signal };
  const payment: PaymentOptions = await wallet.getOptions(input);
  const option: PayableOption | undefined = payment.options[0];
  const wire: PaymentOption | undefined = answer.options?.[0];
  const form: CollectData | null = option ? collectDataOf(option) : null;
  const amount: Amount | undefined = option?.amount;
  const action: Action | undefined = option?.actions[0];
  const call: WalletRpcAction | undefined = action?.type === 'walletRpc' ? action.data : undefined;
  const fetchBody: FetchActionRequest = { optionId: 'opt_x', data: 'bld_x' };
  const fetched: FetchActionResponse = await wallet.fetchAction(paymentId, fetchBody);
  const output: string | undefined = call ? await performWalletRpc(call, signers, { signal }) : undefined;
  const result: ConfirmResult = output ?? { type: 'walletRpc', data: ['AA=='] };
  const confirm: ConfirmPaymentRequest = { optionId: 'opt_x', results: [result], collectedData: null };
  const confirmed: PaymentStatusResponse = await wallet.confirmPayment(paymentId, confirm, { maxPollMs: 0 });
  const payOptions: PayOptions = {
    signal,
    collectedData: {},
    collectedOnWeb: false,
    maxPollMs: DEFAULT_POLL_MS,
    onQuoteChange: async (previous, next) => previous.amount.value === next.amount.value,
    onSigned: ({ paymentId: id, request: r }) => void [id, r.results],
  };
  const paid: PaymentStatusResponse | undefined = option ? await wallet.pay(option, signers, payOptions) : undefined;
  const wait: WaitForFinalOptions = { signal, timeoutMs: 60_000, maxPollMs: 0 };
  const final: PaymentStatusResponse = await wallet.waitForFinal(paymentId, wait);
  const rawStatus = await raw.GET('/v1/gateway/payment/{id}/status', { params: { path: { id: paymentId } } });
  const rawPath: keyof paths = '/v1/gateway/payment/{id}/confirm';
  const op: operations['confirmPayment']['requestBody']['content']['application/json'] = confirm;
  const schema: components['schemas']['PaymentStatusResponse'] = final;

  // The types are the contract's, not strings.
  // @ts-expect-error only one credential mode at a time
  const both: GatewayCredentials = { apiKey: 'wk_test_x', appId: 'app_test_x', clientId: 'c' };
  // @ts-expect-error App-Id needs a Client-Id
  const appOnly: GatewayCredentials = { appId: 'app_test_x' };
  // @ts-expect-error not a contract error code
  const notACode: ErrorCode = 'oops';
  // @ts-expect-error not a reason of the SDK
  const notAReason: PayErrorReason = 'oops';
  const display = { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 };
  // @ts-expect-error amounts are decimal strings
  const badAmount: Amount = { unit: 'iso4217/USD', value: 100, display };

  const codes: readonly ErrorCode[] = errorCodeValues;
  try {
    await wallet.getPayment('pay_x');
  } catch (error) {
    if (error instanceof PaygateError) {
      const detail: [ErrorCode, number, string | null, string | null, string] = [
        error.code,
        error.status,
        error.requestId,
        error.rawCode,
        error.message,
      ];
      void detail;
    }
    if (error instanceof PayError) {
      const detail: [PayErrorReason, number | null, PayableOption | undefined] = [
        error.reason,
        error.actionIndex,
        error.quote?.next,
      ];
      void detail;
    }
  }

  return [
    sameClient,
    info,
    statusName,
    cancelled,
    wire,
    form,
    amount,
    fetched,
    confirmed,
    paid,
    rawStatus,
    rawPath,
    op,
    schema,
    both,
    appOnly,
    notACode,
    notAReason,
    badAmount,
    codes,
    other,
    namespace,
    account,
    feature,
    isPaymentId(paymentId),
    SUPPORTED_METHODS,
    MAX_RETRY_AFTER_MS,
    SDK_NAME,
    SDK_VERSION,
    paymentStatusValues,
    buildActionItemTypeValues,
    collectDataFieldTypeValues,
    walletRpcActionItemTypeValues,
  ];
}
