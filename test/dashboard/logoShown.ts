/**
 * What every page that shows the merchant's uploaded logo must hold (docs/decisions.md §26.27): the image is drawn,
 * it comes from this origin's `/logos/<sha256>.<ext>`, it is named after the merchant, and nothing the page loads
 * leaves the origin.
 */
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { eventually } from '../helpers/wait.js';

/** Starts recording the page's requests to any other origin (a data: URI stays on the page); read the array later. */
export function requestsElsewhere(page: Page, origin: string): string[] {
  const elsewhere: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  return elsewhere;
}

/** The logo is decoded and drawn (not a broken image), from `/logos/…` on this origin, with the merchant's name. */
export async function assertLogoDrawn(logo: Locator, merchantName: string): Promise<void> {
  await eventually('the merchant logo to be drawn', () =>
    logo.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
  );
  assert.match((await logo.getAttribute('src'))!, /^\/logos\/[0-9a-f]{64}\.(png|jpg|webp)$/);
  assert.equal(await logo.getAttribute('alt'), `${merchantName}'s logo`);
}
