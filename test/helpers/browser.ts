/**
 * What every browser test of the web pages needs beyond the launcher (test/collect/browser.ts launchChromium): axe
 * with no serious or critical violation, and screenshots at the phone and desktop widths, with no sideways scroll.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export const WIDTHS = [1280, 375] as const;

/** axe: no serious or critical violation in what the page shows now. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    `axe found serious or critical violations in ${what}`,
  );
}

/**
 * At every width: axe (`accessible`), no horizontal scroll, and a full-page screenshot `<dir>/<name>-<width>.png`.
 * The viewport is put back afterwards.
 */
export async function captureWidths(
  page: Page,
  dir: string,
  name: string,
  options: { accessible?: boolean } = {},
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    if (options.accessible !== false) await assertAccessible(page, `${name} at ${width} px`);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    if (overflow > 0) {
      const wide = await page.evaluate((w) => {
        const found: string[] = [];
        for (const el of Array.from(document.querySelectorAll('body *'))) {
          const r = el.getBoundingClientRect();
          let clipped = false;
          for (let a = el.parentElement; a; a = a.parentElement) {
            if (/(auto|hidden|scroll|clip)/.test(getComputedStyle(a).overflowX)) clipped = true;
          }
          if (!clipped && r.right > w + 1 && found.length < 8) {
            found.push(`${el.tagName.toLowerCase()}.${String(el.className)} ${r.right}`);
          }
        }
        return found;
      }, width);
      assert.fail(`${name} scrolls sideways by ${overflow} px at ${width} px: ${wide.join(', ')}`);
    }
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(original);
}
