/**
 * Response headers (helmet) and CORS. The gateway is called by browser wallets, so it is open to the configured
 * origins; the merchant and dashboard surfaces take secret keys, which must never be used from a browser, so they
 * send no CORS headers at all and a browser refuses to let a page read their answers.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { collectPageCsp } from '../collect/page.js';
import type { Config } from '../config.js';
import { REQUEST_ID_HEADER } from './requestContext.js';

/** Headers a wallet sends to the gateway: the contract's header parameters, plus the body type and a request id. */
export const GATEWAY_REQUEST_HEADERS = [
  'Api-Key',
  'App-Id',
  'Client-Id',
  'Svc-Version',
  'Sdk-Name',
  'Sdk-Version',
  'Sdk-Platform',
  'Content-Type',
  REQUEST_ID_HEADER,
];

export function gatewayCors(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  return cors({
    origin: config.corsOrigins,
    methods: ['GET', 'POST'],
    allowedHeaders: GATEWAY_REQUEST_HEADERS,
    exposedHeaders: [REQUEST_ID_HEADER, 'Retry-After'],
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}

/** JSON answers load nothing, so their policy allows nothing. */
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
 * The data-collection form (docs/decisions.md §16) runs its own script and style, allowed by hash and nothing else
 * inline; it posts only to itself. A wallet opens it in a web view, a popup or a frame, so it may be framed by the
 * origins that may call the gateway from a browser, and its opener keeps its handle on it (no COOP) to receive
 * `IC_COMPLETE`. The no-referrer policy (helmet's default) keeps the link's token out of any Referer.
 */
function collectHeaders(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: [collectPageCsp.scriptSrc],
        styleSrc: [collectPageCsp.styleSrc],
        connectSrc: ["'self'"],
        frameAncestors: config.corsOrigins === '*' ? ['*'] : config.corsOrigins,
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    crossOriginOpenerPolicy: false,
    xFrameOptions: false,
  });
}

export function securityHeaders(config: Pick<Config, 'corsOrigins'>): RequestHandler {
  const collect = collectHeaders(config);
  return (req, res, next) => {
    if (req.path === '/docs' || req.path.startsWith('/docs/')) return docsHeaders(req, res, next);
    if (req.path.startsWith('/collect/')) return collect(req, res, next);
    return apiHeaders(req, res, next);
  };
}
