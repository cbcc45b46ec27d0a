/**
 * The token and network icons shipped with the app (issue 31 finding 10, docs/decisions.md §26.23) in the hosted
 * checkout, in Chromium: the list of what the payment accepts and each option show a drawn icon per token (with its
 * network's in the corner), as data: images, so no request leaves the page's origin. axe and screenshots at 1280 and
 * 375 px.
 */
import assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { useChainSnapshots } from '../helpers/chain.js';
import { assertOnlyOwnOrigin, startCheckoutPage, type CheckoutPageHarness } from './page.js';

/** The token icons inside `scope`: the symbol each is drawn for, and whether each is a drawn data: image. */
async function tokenIcons(scope: Locator): Promise<{ symbol: string; drawn: boolean }[]> {
  return scope.locator('img[data-token-icon]').evaluateAll((imgs) =>
    imgs.map((img) => ({
      symbol: img.getAttribute('data-token-icon') ?? '',
      drawn:
        (img as HTMLImageElement).src.startsWith('data:image/svg+xml,') &&
        (img as HTMLImageElement).complete &&
        (img as HTMLImageElement).naturalWidth > 0 &&
        img.getAttribute('alt') === '',
    })),
  );
}

describe('hosted checkout page: token and network icons', () => {
  useChainSnapshots();
  let h: CheckoutPageHarness;
  before(async () => {
    h = await startCheckoutPage();
  });
  after(() => h?.close());

  it('shows a shipped icon for each accepted token and each option, without a request to another origin', async () => {
    const buyer = await h.buyer();
    const paymentId = await h.payment();
    const { page, requests } = await h.open(paymentId, { evm: { buyer } });
    await h.view(page, 'open');
    const accepted = page.getByRole('list', { name: 'You can pay with' });
    const before = await tokenIcons(accepted);
    const chips = await accepted.getByRole('listitem').allTextContents();
    assert.deepEqual(
      before.map((i) => i.symbol),
      chips.map((text) => text.split(' on ')[0]),
      'one icon per token and network, drawn for its token',
    );
    assert.ok(
      before.every((i) => i.drawn),
      JSON.stringify(before),
    );
    // The icon is decorative: the chip's text is the token and network, unchanged.
    assert.ok(chips.includes('TUSD on Local'), chips.join(', '));

    await page.getByRole('button', { name: 'Connect Test EVM Wallet' }).click();
    const options = page.getByTestId('option');
    await options.filter({ hasText: 'TUSD' }).first().waitFor();
    const shown = await tokenIcons(page.locator('[data-view="open"]').getByRole('list').last());
    assert.ok(
      shown.some((i) => i.symbol === 'TUSD' && i.drawn) && shown.some((i) => i.symbol === 'ETH' && i.drawn),
      JSON.stringify(shown),
    );
    assertOnlyOwnOrigin(requests, h.server.url);
    await h.capture(page, 'token-icons');
  });
});
