/**
 * The data-collection web page (`GET /collect/{paymentId}`): the self-contained HTML that web/ builds from
 * web/src/collect/, with a JSON block of the one thing the page shows, the form's JSON Schema or the refusal
 * (web/src/collect/config.ts). The page tells the wallet how it ended (docs/decisions.md §16).
 */
import { join } from 'node:path';
import type { CollectPageConfig } from '../../../web/src/collect/config.js';
import { webPageTemplate, type WebPage } from '../http/webPages.js';

export type CollectPageView = CollectPageConfig;

export interface CollectPage {
  render(view: CollectPageView): string;
  /** The CSP sources of the page's own inline script and style. */
  inline: WebPage['inline'];
}

/** The built page (web/dist/collect.html); null when web/ was never built. */
export function collectPage(distDir: string): () => CollectPage | null {
  const page = webPageTemplate(join(distDir, 'collect.html'));
  return () => {
    const built = page();
    return built && { render: (view) => built.render(view), inline: built.inline };
  };
}
