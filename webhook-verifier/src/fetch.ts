import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { Webhook, type WebhookOptions } from './webhook.js';

export interface WebhookHandlerOptions extends WebhookOptions {
  /** Largest accepted body in bytes; larger deliveries are answered 413. Default 1 MiB. */
  limit?: number;
}

/** Return a Response to send it, or nothing for an empty 204. Throw to answer with an error so the gateway retries. */
export type WebhookEventHandler = (
  event: WebhookEvent,
  request: Request,
) => Response | void | undefined | Promise<Response | void | undefined>;

const DEFAULT_LIMIT = 1024 * 1024;

/**
 * A `(Request) => Promise<Response>` receiver for fetch-style runtimes and frameworks (Next.js route handlers, Hono,
 * Bun.serve, Deno.serve, workers). Verifies with WebCrypto and answers 400 `{code, message}` on failure.
 */
export function createWebhookHandler(
  secretOrWebhook: string | readonly string[] | Webhook,
  handler: WebhookEventHandler,
  options: WebhookHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const webhook = secretOrWebhook instanceof Webhook ? secretOrWebhook : new Webhook(secretOrWebhook, options);
  const limit = options.limit ?? DEFAULT_LIMIT;

  return async (request) => {
    if (Number(request.headers.get('content-length')) > limit) return tooLarge(limit);
    const rawBody = new Uint8Array(await request.arrayBuffer());
    if (rawBody.length > limit) return tooLarge(limit);
    let event: WebhookEvent;
    try {
      event = await webhook.verifyAsync(rawBody, request.headers);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return errorResponse(400, error.reason, error.message);
      throw error;
    }
    return (await handler(event, request)) ?? new Response(null, { status: 204 });
  };
}

function tooLarge(limit: number): Response {
  return errorResponse(413, 'payload_too_large', `Webhook body exceeds ${limit} bytes`);
}

function errorResponse(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ code, message }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}
