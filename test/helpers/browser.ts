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

/** axe: no serious or critical violation in what the page shows now, and no control whose contrast axe left unsure. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const unsure = result.incomplete.filter((r) => r.id === 'color-contrast').flatMap((r) => r.nodes);
  assert.deepEqual(
    [
      ...bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
      ...(await lowContrast(page, unsure)),
    ],
    [],
    `axe found serious or critical violations in ${what}`,
  );
}

interface UnsureNode {
  target: unknown[];
  any: { data?: unknown }[];
}

/** Not text a person reads (an icon glyph, a one-character mark): axe cannot tell, and neither can a ratio. */
const NOT_TEXT = new Set(['shortTextContent', 'nonBmp']);

/**
 * axe leaves a colour contrast it cannot settle as `incomplete` ("needs review"), never a violation, and that includes
 * text drawn in the colour of its own background (`equalRatio`, 1:1: issue 31's invisible danger buttons). Each such
 * node is refused when it is 1:1, when axe did compute a ratio below the one it expects, and otherwise (a gradient, an
 * overlap, a pseudo-element) when its text against the first opaque background behind it is below 4.5:1 (3:1 for
 * large text), computed here.
 */
async function lowContrast(page: Page, nodes: UnsureNode[]): Promise<string[]> {
  const found: string[] = [];
  for (const node of nodes) {
    const data = (node.any[0]?.data ?? {}) as {
      messageKey?: string;
      contrastRatio?: number;
      expectedContrastRatio?: string;
    };
    const selector = node.target[node.target.length - 1];
    if (typeof selector !== 'string' || NOT_TEXT.has(data.messageKey ?? '')) continue;
    const expected = Number.parseFloat(data.expectedContrastRatio ?? '') || undefined;
    if (data.messageKey === 'equalRatio') {
      found.push(`color-contrast: text in the colour of its background, 1:1 (${selector})`);
      continue;
    }
    if (expected !== undefined && data.contrastRatio !== undefined && data.contrastRatio > 0) {
      if (data.contrastRatio < expected) {
        found.push(`color-contrast: ${data.contrastRatio}:1 below ${expected}:1 (${selector})`);
      }
      continue;
    }
    const own = await ownContrast(page, selector);
    if (own && own.ratio < own.expected) {
      found.push(`color-contrast: ${own.ratio}:1 below ${own.expected}:1 (${selector})`);
    }
  }
  return found;
}

/** The element's text colour against the first opaque background behind it (white at the top), with the WCAG minimum. */
function ownContrast(page: Page, selector: string): Promise<{ ratio: number; expected: number } | null> {
  // A string, not a function: the test runner's transpiler would add helpers the page does not have.
  return page.evaluate<{ ratio: number; expected: number } | null>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) return null;
    const rgba = (c) => { const v = (c.match(/[\\d.]+/g) ?? []).map(Number); return v.length === 3 ? [...v, 1] : v; };
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = [255, 255, 255];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.length === 4 && c[3] > 0.5) { bg = c; break; }
    }
    const style = getComputedStyle(el);
    const fg = rgba(style.color);
    const a = fg[3] ?? 1;
    const seen = [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a));
    const x = lum(seen);
    const y = lum(bg);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    return { ratio: Math.round(((Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05)) * 100) / 100, expected: large ? 3 : 4.5 };
  })()`);
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
