import { PayError, PaygateError } from './errors.js';
import { broadcasts, checkCall, ensureChain, performWalletRpc, type Signers } from './signers.js';
import {
  collectDataOf,
  type ConfirmPaymentRequest,
  type ConfirmResult,
  type FetchActionRequest,
  type FetchActionResponse,
  type PayableOption,
  type PaymentOptions,
  type PaymentStatusResponse,
  type WalletRpcAction,
} from './types.js';

export interface PayOptions {
  /**
   * Asked when the option's quote had to be renewed (it expired) and the renewed one sends another amount: answer
   * true to sign `next`, false to stop. Without it, a changed amount always stops the payment. Either way a stop is a
   * `PayError` with reason `quote_changed`, before anything is signed for the new amount.
   */
  onQuoteChange?: (previous: PayableOption, next: PayableOption) => boolean | Promise<boolean>;
  /** Aborts the flow between steps (and any request in flight); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The buyer's data, when the option (or the payment) requires data collection (`collectDataOf(option)`). */
  collectedData?: Record<string, unknown>;
  /**
   * True when the buyer filled the web form at `collectDataOf(option).url` instead: the server has the data, so none
   * is sent. Without either, an option that requires data collection is refused before anything is signed.
   */
  collectedOnWeb?: boolean;
  /** How long each status request may wait for a final status (0–25000). Default `DEFAULT_MAX_POLL_MS`. */
  maxPollMs?: number;
  /**
   * Called when every action has been performed, before confirm, with the confirm the SDK is about to send (again
   * after a renewed quote was signed). Keep it if you must be able to confirm later (e.g. after an
   * `eth_sendTransaction`, whose funds have moved, when the confirm fails or the flow is aborted):
   * `confirmPayment(paymentId, request)` is safe to repeat.
   */
  onSigned?: (signed: { paymentId: string; request: ConfirmPaymentRequest }) => void | Promise<void>;
}

/** What the flow needs from the client; PaygateWallet provides it. */
export interface PayDeps {
  getOptions(input: {
    paymentId: string;
    accounts: string[];
    refresh: string[];
    signal?: AbortSignal;
  }): Promise<PaymentOptions>;
  fetchAction(paymentId: string, body: FetchActionRequest, o: { signal?: AbortSignal }): Promise<FetchActionResponse>;
  confirmPayment(
    paymentId: string,
    body: ConfirmPaymentRequest,
    o: { signal?: AbortSignal },
  ): Promise<PaymentStatusResponse>;
  waitForFinal(paymentId: string, o: { signal?: AbortSignal; maxPollMs?: number }): Promise<PaymentStatusResponse>;
  now(): number;
}

/** A renewed quote that is refused again (a server and a device whose clocks disagree) ends the flow there. */
const MAX_RENEWALS = 3;

interface PlannedCall {
  actionIndex: number;
  call: WalletRpcAction;
}

export async function pay(
  deps: PayDeps,
  option: PayableOption,
  signers: Signers,
  options: PayOptions = {},
): Promise<PaymentStatusResponse> {
  const { signal } = options;
  let current = option;
  // An option this flow just fetched is trusted over the device's clock, which may be wrong: only the server's
  // quote_expired renews it again.
  let fresh = false;
  let renewals = 0;
  const renew = async () => {
    renewals++;
    current = await renewQuote(deps, current, options);
    fresh = true;
  };
  for (;;) {
    signal?.throwIfAborted();
    checkOption(current, signers);
    if (!fresh && typeof current.expiresAt === 'number' && deps.now() >= current.expiresAt * 1000) {
      await renew();
      continue;
    }
    let calls: PlannedCall[];
    try {
      calls = await resolveActions(deps, current, signal);
    } catch (error) {
      if (!isQuoteExpired(error) || renewals >= MAX_RENEWALS) throw error;
      await renew();
      continue;
    }
    // Every call, the fetched ones included, is checked before the first is performed: nothing is signed for an
    // option that would be refused halfway.
    for (const { call, actionIndex } of calls) checkCall(call, signers, actionIndex);
    if (collectDataOf(current) !== null && options.collectedData === undefined && options.collectedOnWeb !== true) {
      throw new PayError(
        'collected_data_required',
        'This option requires the buyer’s data (collectDataOf(option)): pass it as collectedData, or have the buyer ' +
          'fill the form at its url and pass collectedOnWeb: true. Nothing was signed.',
      );
    }
    const firstEvm = calls.find((c) => c.call.chain_id.startsWith('eip155:'));
    if (firstEvm) await ensureChain(signers.eip155!, firstEvm.call, firstEvm.actionIndex);

    const results = await performAll(current, calls, signers, signal);
    const request: ConfirmPaymentRequest = {
      optionId: current.id,
      results,
      ...(options.collectedData === undefined ? {} : { collectedData: options.collectedData }),
    };
    await options.onSigned?.({ paymentId: current.paymentId, request });
    signal?.throwIfAborted();
    let status: PaymentStatusResponse;
    try {
      status = await deps.confirmPayment(current.paymentId, request, { signal });
    } catch (error) {
      // Signatures that were never accepted can be discarded and the new quote signed; a sent transaction cannot.
      if (!isQuoteExpired(error) || renewals >= MAX_RENEWALS || calls.some((c) => broadcasts(c.call))) throw error;
      await renew();
      continue;
    }
    if (status.isFinal) return status;
    return deps.waitForFinal(current.paymentId, { signal, maxPollMs: options.maxPollMs });
  }
}

/** The checks that need no call: every action's type, and every walletRpc action's method, form and signer. */
export function checkOption(option: PayableOption, signers: Signers): void {
  if (typeof option?.paymentId !== 'string' || typeof option.id !== 'string') {
    throw new TypeError('pay: the option must be one of getOptions’ (with its paymentId and id)');
  }
  if (!Array.isArray(option.actions) || option.actions.length === 0) {
    throw new PayError('invalid_action', 'The option has no actions.');
  }
  option.actions.forEach((action, actionIndex) => {
    const type = (action as { type?: unknown }).type;
    if (type === 'walletRpc') checkCall(action.data as WalletRpcAction, signers, actionIndex);
    else if (type === 'build') {
      if (typeof (action.data as { data?: unknown })?.data !== 'string') {
        throw new PayError('invalid_action', `Action ${actionIndex}: a build action carries data.data.`, {
          actionIndex,
        });
      }
    } else {
      throw new PayError(
        'unsupported_action',
        `Action ${actionIndex} has type ${JSON.stringify(type)}, which this SDK does not know; the option cannot be ` +
          'paid with it. Nothing was signed.',
        { actionIndex },
      );
    }
  });
}

/** The option's calls in order, `build` actions resolved through fetch. */
async function resolveActions(deps: PayDeps, option: PayableOption, signal?: AbortSignal): Promise<PlannedCall[]> {
  const calls: PlannedCall[] = [];
  for (const [actionIndex, action] of option.actions.entries()) {
    if (action.type === 'walletRpc') {
      calls.push({ actionIndex, call: action.data });
      continue;
    }
    const answer = await deps.fetchAction(
      option.paymentId,
      { optionId: option.id, data: action.data.data },
      { signal },
    );
    if (answer.actions.length === 0) {
      throw new PayError('invalid_action', `Action ${actionIndex}: fetch resolved it to no call.`, { actionIndex });
    }
    for (const resolved of answer.actions) {
      if ((resolved as { type?: unknown }).type !== 'walletRpc') {
        throw new PayError('unsupported_action', `Action ${actionIndex}: fetch answered a non-walletRpc action.`, {
          actionIndex,
        });
      }
      calls.push({ actionIndex, call: resolved.data });
    }
  }
  return calls;
}

/** One result per action, in order: a string, or the object form for a build action that became several calls. */
async function performAll(
  option: PayableOption,
  calls: PlannedCall[],
  signers: Signers,
  signal?: AbortSignal,
): Promise<ConfirmResult[]> {
  const outputs: string[][] = option.actions.map(() => []);
  for (const { call, actionIndex } of calls) {
    signal?.throwIfAborted();
    outputs[actionIndex]!.push(await performWalletRpc(call, signers, { actionIndex, signal }));
  }
  return outputs.map((data, i) =>
    option.actions[i]!.type === 'build' && data.length > 1 ? { type: 'walletRpc' as const, data } : data[0]!,
  );
}

/** Quotes the same account and asset again, and asks the app before a different amount is signed. */
async function renewQuote(deps: PayDeps, previous: PayableOption, options: PayOptions): Promise<PayableOption> {
  const { signal } = options;
  const answer = await deps.getOptions({
    paymentId: previous.paymentId,
    accounts: [previous.account],
    refresh: [previous.id],
    signal,
  });
  const next = answer.options.find(
    (o) => sameAccount(o.account, previous.account) && o.amount.unit === previous.amount.unit,
  );
  if (!next) {
    throw new PayError(
      'option_unavailable',
      `The quote expired and the payment can no longer be paid with ${previous.amount.unit} from ${previous.account}; ` +
        'get the options again and let the buyer choose. Nothing was signed.',
    );
  }
  if (next.amount.value === previous.amount.value) return next;
  const accepted = options.onQuoteChange ? await options.onQuoteChange(previous, next) : false;
  signal?.throwIfAborted();
  if (accepted !== true) {
    throw new PayError(
      'quote_changed',
      `The quote expired and was renewed at ${next.amount.value} instead of ${previous.amount.value} ` +
        `(${next.amount.unit}), which ${options.onQuoteChange ? 'the app declined' : 'needs onQuoteChange to accept'}. ` +
        'Nothing was signed.',
      { quote: { previous, next } },
    );
  }
  return next;
}

/** EVM addresses are case-insensitive (EIP-55 casing is only a checksum); Solana's base58 ones are not. */
function sameAccount(a: string, b: string): boolean {
  return a.startsWith('eip155:') ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function isQuoteExpired(error: unknown): boolean {
  return error instanceof PaygateError && error.code === 'quote_expired';
}
