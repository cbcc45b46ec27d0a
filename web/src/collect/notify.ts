/**
 * Tells the wallet through every channel wallets listen on (docs/decisions.md §16): `{type: 'IC_COMPLETE'}`, or
 * `{type: 'IC_ERROR', error, message}`. The wallet may be a web page that opened or framed this one, or a React
 * Native, iOS (WKWebView) or Android web view.
 */
export type WalletMessage = { type: 'IC_COMPLETE' } | { type: 'IC_ERROR'; error: string; message: string };

const BRIDGE = 'payDataCollectionComplete';

interface Bridges {
  ReactNativeWebView?: { postMessage?: (text: string) => void };
  webkit?: { messageHandlers?: Record<string, { postMessage(message: unknown): void } | undefined> };
  AndroidWallet?: { onDataCollectionComplete?: (text: string) => void };
}

export function notify(message: WalletMessage): void {
  const text = JSON.stringify(message);
  for (const target of [window.opener as Window | null, window.parent]) {
    if (!target || target === window) continue;
    try {
      // '*': the message carries no personal data, and the wallet's origin is not known.
      target.postMessage(message, '*');
    } catch {
      // A closed or foreign window.
    }
  }
  const bridges = window as unknown as Bridges;
  try {
    if (bridges.ReactNativeWebView && bridges.ReactNativeWebView.postMessage) {
      bridges.ReactNativeWebView.postMessage(text);
    }
  } catch {
    // Not a React Native web view.
  }
  try {
    const handlers = bridges.webkit && bridges.webkit.messageHandlers;
    const handler = handlers && handlers[BRIDGE];
    if (handler) handler.postMessage(message);
  } catch {
    // Not a WKWebView with the handler.
  }
  try {
    if (bridges.AndroidWallet && bridges.AndroidWallet.onDataCollectionComplete) {
      bridges.AndroidWallet.onDataCollectionComplete(text);
    }
  } catch {
    // Not an Android web view with the bridge.
  }
}
