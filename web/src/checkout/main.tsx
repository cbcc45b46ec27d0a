/**
 * The checkout's entry module: small, so it arrives and runs while the app's chunk is still on its way (the HTML
 * preloads that chunk beside this one, vite.config.ts, so nothing waits on this module to ask for it). It reads the
 * page's config and starts the locale's number data, then renders the app (docs/decisions.md §26.28).
 */
import { CONFIG_ELEMENT_ID, LANGUAGES, type CheckoutPageConfig } from '../pageConfig.js';
import './styles.css';

function readConfig(): CheckoutPageConfig {
  const element = document.getElementById(CONFIG_ELEMENT_ID);
  const parsed = JSON.parse(element?.textContent ?? 'null') as CheckoutPageConfig | null;
  if (!parsed) throw new Error('the checkout page has no configuration block');
  if (!(LANGUAGES as readonly string[]).includes(parsed.lang)) parsed.lang = 'en';
  return parsed;
}

/** Draws nothing: creates the formatter the summary's amount needs, which loads the locale's number data. */
function warmNumberFormat(lang: string, unit: string): void {
  try {
    new Intl.NumberFormat(lang, { style: 'currency', currency: unit.replace(/^iso4217\//, '') }).format(0);
  } catch {
    // Not a currency this browser knows: the summary formats it its own way (kit/amounts.ts showFiat).
  }
}

const config = readConfig();
// A renderer's first Intl formatter loads its ICU number data: 20–100 ms of main thread in a fresh tab on the bench's
// machine, which the open view's first render would otherwise spend before it can show the amount. Formatting the
// page's currency here spends it while the network is still busy with the app; the render's own formatting of the
// same amount is then immediate.
if (config.payment) warmNumberFormat(config.lang, config.payment.amount.unit);
const { start } = await import('./start.js');
start(config);
