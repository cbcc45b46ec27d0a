/**
 * What the server tells the checkout page about itself, in a JSON block of the HTML (`#paygate-config`), which is
 * data and never executed, so the page's CSP allows no inline script. Only what the gateway API cannot answer goes
 * here: the public app credential the page calls the gateway with, the chains' wallet metadata, and the merchant's
 * redirect URLs. Amounts, addresses and statuses always come from the gateway API, never from the query: the one
 * exception to "not from here" is `payment`, the gateway's own read of an open payment embedded at render.
 */
import type { components } from './generated/gateway.js';

export interface CheckoutChain {
  /** CAIP-2, e.g. `eip155:8453` or `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`. */
  caip2: string;
  name: string;
  /** The symbols of the assets this chain accepts, shown when none of the buyer's accounts can pay. */
  assets: string[];
  /** An explorer's transaction page with `{txId}` in it, or null when the chain has none (the local chains). */
  explorerTxUrl: string | null;
  /** EIP-3085 parameters for `wallet_addEthereumChain`; null when the chain has no public RPC to offer wallets. */
  addChain: {
    chainId: string;
    chainName: string;
    rpcUrls: string[];
    nativeCurrency: { name: string; symbol: string; decimals: number };
    blockExplorerUrls?: string[];
  } | null;
}

export interface CheckoutPageConfig {
  /** The payment this page is for; null when the path names no payment (the page shows "not found"). */
  paymentId: string | null;
  /** The page's language, one of `LANGUAGES`, chosen by the server from `?lang=` or `Accept-Language`. */
  lang: string;
  /** The public app id of the hosted checkout in the payment's mode (docs/decisions.md, "The hosted checkout"). */
  appId: string | null;
  /**
   * The merchant's own reference of the order (the payment's `referenceId`), shown to the buyer beside the amount and
   * on the final views: it is what the buyer and the merchant both know the order by (not `pay_…`). Null when the
   * page names no payment.
   */
  reference: string | null;
  /**
   * The gateway's read of the payment (`GET /v1/gateway/payment/{id}`, the same function answers both) when it is
   * open, so the page shows it without waiting for a first request (docs/decisions.md §26.15); null otherwise, and
   * the page reads it.
   */
  payment: components['schemas']['PaymentInfo'] | null;
  /** The payment link for phones: the payment's `gatewayUrl`. */
  paymentLink: string | null;
  /** A Solana Pay transaction request link (`solana:https://…`), when the payment's mode has a Solana chain. */
  solanaPayLink: string | null;
  chains: CheckoutChain[];
  /**
   * The server's clock when it rendered the page (ms since the epoch). Deadlines are the server's, and a buyer's
   * device clock may be minutes off: the page counts from this, moved on by the device's monotonic clock.
   */
  serverTime: number;
  /** Both of the payment's redirect URLs when both are HTTPS, else null (the page then stays on its own views). */
  redirect: { successUrl: string; errorUrl: string } | null;
}

/** The languages of the catalogue (web/src/i18n.ts); the server picks among exactly these. */
export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

export const CONFIG_ELEMENT_ID = 'paygate-config';
