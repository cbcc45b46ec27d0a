/**
 * The shared accessibility check (test/helpers/browser.ts assertAccessible) that every browser test runs. axe reports
 * text drawn in the colour of its own background (issue 31 finding 2: red on red) only as `incomplete` ("needs review"),
 * never as a violation, so a check that reads only violations passes an invisible button.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../collect/browser.js';
import { assertAccessible } from '../helpers/browser.js';

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Contrast</title></head>` +
  `<body><main><h1>Contrast</h1>${body}</main></body></html>`;

describe('web.accessibility.contrast [browser]', () => {
  let browser: Browser;
  let tab: Page;
  before(async () => {
    browser = await launchChromium();
    tab = await (await browser.newContext()).newPage();
  });
  after(() => browser.close());

  it('refuses a button whose text has the colour of its background (axe: incomplete, 1:1)', async () => {
    await tab.setContent(
      page('<button type="button" style="color:#b91c1c;background:#b91c1c;border:0">Cancel payment</button>'),
    );
    await assert.rejects(assertAccessible(tab, 'red on red'), /Cancel payment|contrast/i);
  });

  it('refuses a control on a background axe cannot read whose own contrast is below 4.5:1', async () => {
    await tab.setContent(
      page(
        '<div style="background:#ddd linear-gradient(#ddd,#ddd)"><a href="#x" style="color:#aaa">Delete endpoint</a></div>',
      ),
    );
    await assert.rejects(assertAccessible(tab, 'grey on a gradient'), /Delete endpoint|contrast/i);
  });

  it('accepts white text on the danger red and dark text on a gradient', async () => {
    await tab.setContent(
      page(
        '<button type="button" style="color:#fff;background:#b91c1c;border:0">Cancel payment</button>' +
          '<div style="background:#fff linear-gradient(#fff,#fff)"><a href="#x" style="color:#1f2937">Delete endpoint</a></div>',
      ),
    );
    await assertAccessible(tab, 'readable controls');
  });
});
