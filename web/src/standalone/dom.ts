/**
 * The plain-DOM helpers the small standalone pages (invoice, refund claim, payment link, collect) share: they render
 * into static HTML with ids, without a framework, so they stay tiny.
 */

export function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** The `message` of an ErrorResponse body, or `fallback` when the body is not one (a proxy's HTML, no body). */
export const messageOf = (body: unknown, fallback: string): string =>
  body !== null && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string'
    ? (body as { message: string }).message
    : fallback;
