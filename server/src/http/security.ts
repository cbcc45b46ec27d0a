/**
 * Response headers (helmet) and CORS. The gateway is called by browser wallets, so it is open to the configured
 * origins; the merchant and dashboard surfaces take secret keys, which must never be used from a browser, so they
 * send no CORS headers at all and a browser refuses to let a page read their answers.
 */
import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { Config } from '../config.js';
import { REQUEST_ID_HEADER } from './requestContext.js';

/** Headers a wallet sends to the gateway: the contract's header parameters, plus the body type and a request id. */
export const GATEWAY_REQUEST_HEADERS = [
  'Api-Key',
  'App-Id',
  'Client-Id',
  'Svc-Version',
  'WCP-Version',
  // Sent by WalletConnect Pay's SDKs beside WCP-Version (same value); not read, but a browser's preflight must pass.
  'Api-Version',
  'Sdk-Name',
  'Sdk-Version',
  'Sdk-Platform',
  'Content-Type',
  REQUEST_ID_HEADER,
];

/** The gateway operations that take no credential (Solana Pay), which any page may call. */
const OPEN_TO_ANY_ORIGIN = /^\/v1\/gateway\/(payment\/[^/]+\/solana-pay|solana-pay\/icon\.svg)$/;

export function gatewayCors(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  const options = {
    methods: ['GET', 'POST'],
    allowedHeaders: GATEWAY_REQUEST_HEADERS,
    exposedHeaders: [REQUEST_ID_HEADER, 'Retry-After', 'WCP-Version'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  };
  const configured = cors({ ...options, origin: config.corsOrigins });
  // Solana Pay wallets may be web pages of any origin, and these operations carry no secret a page could misuse.
  const anyOrigin = cors({ ...options, origin: '*' });
  return (req, res, next) => (OPEN_TO_ANY_ORIGIN.test(req.path) ? anyOrigin : configured)(req, res, next);
}

/**
 * Helmet's answer headers here depend on nothing in the request (no directive is a function), yet running its dozen
 * small middlewares costs more per request than setting the headers. So each policy runs once, against a recorder,
 * and every request gets the recorded headers set in the same order: the same headers, for a fraction of the work.
 */
export function fixedHeaders(policy: RequestHandler): RequestHandler {
  const set: [string, string | number | readonly string[]][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      set.push([name, value]);
      return recorder;
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  // A policy that reads the request or the response, or finishes later, cannot be recorded: better to fail at
  // startup than to send headers that drifted from the policy.
  const unrecordable = (what: string) => {
    throw new Error(`a header policy used ${what}, so its headers cannot be recorded once`);
  };
  const req = new Proxy({}, { get: (_t, key) => unrecordable(`the request's ${String(key)}`) });
  const res = new Proxy(recorder, {
    get: (target, key) => (key in target ? target[key as keyof typeof target] : unrecordable(`res.${String(key)}`)),
  });
  let done = false;
  void policy(req as Request, res as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  if (!done) unrecordable('a callback');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}

/**
 * JSON answers load nothing, so their policy allows nothing. They are not documents either, so they carry what an
 * API answer needs (the CSP, HSTS, nosniff, frame options and CORP, as OWASP's REST cheat sheet lists them) and not
 * helmet's headers for HTML pages: opener and referrer policies, origin-agent clusters, DNS prefetching, IE
 * downloads, Flash policies, the XSS auditor. Every header costs every answer its bytes and work.
 */
const apiHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
  crossOriginOpenerPolicy: false,
  referrerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

/**
 * The Redoc pages are self-contained: their script and styles are inline (scripts/build-docs.ts fails the build on
 * any external load), so inline is allowed and every other source is not. Redoc's search runs in a blob: worker.
 */
const docsHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'unsafe-inline'"],
      styleSrc: ["'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      workerSrc: ['blob:'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
});

/**
 * The data-collection form (docs/decisions.md §16) loads only its own built script and style (no inline script or
 * style) and posts only to itself. A wallet opens it in a web view, a popup or a frame, so it may be framed by the
 * origins that may call the gateway from a browser, and its opener keeps its handle on it (no COOP) to receive
 * `IC_COMPLETE`. The no-referrer policy (helmet's default) keeps the link's token out of any Referer.
 */
function collectHeaders(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        connectSrc: ["'self'"],
        // 'self': the hosted checkout frames the form in its dialog.
        frameAncestors: config.corsOrigins === '*' ? ['*'] : ["'self'", ...config.corsOrigins],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    crossOriginOpenerPolicy: false,
    xFrameOptions: false,
  });
}

/**
 * The hosted checkout (docs/decisions.md, "The hosted checkout") loads only its own built files: no inline script or
 * style, no third-party origin. It talks only to this server (the gateway API) and frames only this server's
 * data-collection form. Nobody may frame it, so no site can overlay a payment button (clickjacking).
 */
const checkoutHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameSrc: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

/**
 * The merchant dashboard (a single-page app at /dashboard) loads only its own built files: no inline script or style,
 * no third-party origin, images only from itself or data: URIs (the 2FA QR code). It talks only to this server's
 * dashboard API. Nobody may frame it (clickjacking a team or key change), and it sends no Referer anywhere.
 */
const dashboardHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
    },
  },
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
});

/**
 * A payment link's page (docs/decisions.md §30.6): the checkout's policy, but its form posts to itself (the buyer's
 * amount or quantity), and the answer's redirect goes on to the checkout, also on this origin.
 */
const linkHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

/** The dashboard page's paths: `/dashboard` and everything under it (never the API's `/v1/dashboard`). */
export function isDashboardPagePath(path: string): boolean {
  return path === '/dashboard' || path.startsWith('/dashboard/');
}

export function securityHeaders(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  const api = fixedHeaders(apiHeaders);
  const dashboard = fixedHeaders(dashboardHeaders);
  const checkout = fixedHeaders(checkoutHeaders);
  const docs = fixedHeaders(docsHeaders);
  const collect = fixedHeaders(collectHeaders(config));
  const link = fixedHeaders(linkHeaders);
  return (req, res, next) => {
    if (req.path === '/docs' || req.path.startsWith('/docs/')) return docs(req, res, next);
    if (req.path.startsWith('/collect/')) return collect(req, res, next);
    if (req.path.startsWith('/pay/') || req.path.startsWith('/checkout/')) return checkout(req, res, next);
    if (req.path.startsWith('/l/') || req.path.startsWith('/link/')) return link(req, res, next);
    if (isDashboardPagePath(req.path)) return dashboard(req, res, next);
    // A refund's claim page wants exactly the dashboard's policy: its own files only, this server's API, no framing.
    if (req.path === '/refund' || req.path.startsWith('/refund/')) return dashboard(req, res, next);
    // So does the point-of-sale screen (docs/decisions.md §30.15).
    if (req.path.startsWith('/pos/')) return dashboard(req, res, next);
    // So does an invoice's page (§30.11).
    if (req.path.startsWith('/i/') || req.path.startsWith('/invoice/')) return dashboard(req, res, next);
    return api(req, res, next);
  };
}
