import type { Request, RequestHandler, Response } from 'express';
import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { Webhook, type RawBody, type WebhookOptions } from './webhook.js';

declare global {
  // Express's own extension point for typed request properties.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified event, set by `webhookMiddleware` before it calls `next()`. */
      webhookEvent?: WebhookEvent;
    }
  }
}

export interface WebhookMiddlewareOptions extends WebhookOptions {
  /** Largest body read from the stream, in bytes; larger deliveries are answered 413. Default 1 MiB. */
  limit?: number;
}

const DEFAULT_LIMIT = 1024 * 1024;

/**
 * Verifies a delivery on an Express (or any connect-style) route: answers 400 `{code, message}` when verification
 * fails, otherwise sets `req.webhookEvent` and calls `next()`.
 *
 * It reads the raw body from the request stream itself, or takes `req.body` when it is a Buffer (`express.raw`) or
 * a string. A `req.body` already parsed into an object is refused with an error passed to `next`, because the
 * bytes that were signed are gone.
 */
export function webhookMiddleware(
  secretOrWebhook: string | readonly string[] | Webhook,
  options: WebhookMiddlewareOptions = {},
): RequestHandler {
  const webhook = secretOrWebhook instanceof Webhook ? secretOrWebhook : new Webhook(secretOrWebhook, options);
  const limit = options.limit ?? DEFAULT_LIMIT;

  return (req, res, next) => {
    rawBodyOf(req, limit).then(
      (rawBody) => {
        if (rawBody === undefined) return reply(res, 413, 'payload_too_large', `Webhook body exceeds ${limit} bytes`);
        let event: WebhookEvent;
        try {
          event = webhook.verify(rawBody, req.headers);
        } catch (error) {
          if (error instanceof WebhookVerificationError) return reply(res, 400, error.reason, error.message);
          return next(error);
        }
        req.webhookEvent = event;
        next();
      },
      (error: unknown) => next(error),
    );
  };
}

/** Resolves to undefined when the body is over `limit`. */
async function rawBodyOf(req: Request, limit: number): Promise<RawBody | undefined> {
  const body: unknown = req.body;
  if (body instanceof Uint8Array || typeof body === 'string') return body;
  if (req.readableDidRead || req.readableEnded) {
    throw new Error(
      'webhookMiddleware: the request body was already consumed' +
        (body !== undefined && body !== null ? ' and parsed into an object (e.g. by express.json())' : '') +
        '. Webhook signatures cover the exact raw bytes, and re-serialising parsed JSON does not reproduce them, ' +
        'so the delivery cannot be verified. Mount webhookMiddleware before any body parser on this route, or ' +
        "give it the raw bytes with express.raw({ type: 'application/json' }).",
    );
  }
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return undefined;
  }
  return readStream(req, limit);
}

function readStream(req: Request, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit, keep draining so the connection stays usable for the 413 answer.
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? undefined : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reply(res: Response, status: number, code: string, message: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ code, message }));
}
