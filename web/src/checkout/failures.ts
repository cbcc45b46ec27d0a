/** How the page reads a failure of the gateway or a wallet. */
import { PaygateError } from '@paygate/sdk-wallet';

/** The gateway's answer that the payment is no longer payable: its status, not a message, says what happened. */
export function paymentEnded(error: unknown): boolean {
  return error instanceof PaygateError && ['payment_expired', 'invalid_state'].includes(error.code);
}

export function reasonOf(error: unknown): string {
  return error instanceof Error && error.message ? error.message : String(error);
}

/** Waits `ms`, or less when the signal aborts (the page moved on). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}
