/**
 * The plain-DOM helpers the small standalone pages (invoice, refund claim, payment link, collect) share: they render
 * into static HTML with ids, without a framework, so they stay tiny.
 */
import { isLocalImage } from '../kit/localImage.js';

export function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** The `message` of an ErrorResponse body, or `fallback` when the body is not one (a proxy's HTML, no body). */
export const messageOf = (body: unknown, fallback: string): string =>
  body !== null && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string'
    ? (body as { message: string }).message
    : fallback;

/**
 * The merchant's name, after its uploaded logo when it has one (docs/decisions.md §26.27). Only a path on this origin
 * is drawn (Paygate serves logos under `/logos/`): a remote image would tell a third party who is paying whom, and the
 * pages' CSP would refuse it anyway. Without a logo the element holds the name alone, as before.
 */
export function showMerchant(element: HTMLElement, name: string, logoUrl: string | null): void {
  element.textContent = name;
  if (logoUrl === null || !isLocalImage(logoUrl)) return;
  const logo = document.createElement('img');
  logo.className = 'merchant-logo';
  logo.src = logoUrl;
  logo.alt = `${name}'s logo`;
  element.prepend(logo);
}
