/**
 * A payment link's page (docs/decisions.md §30.6). The server decides everything: this script only shows the link's
 * block of config. The form is a plain HTML form that posts to the page itself; the server's answer is the redirect
 * to the hosted checkout, or this page again with the reason.
 */
import type { LinkPageConfig } from './config.js';
import './styles.css';
import { byId, showMerchant } from '../standalone/dom.js';

/** Minor units as whole units with the currency code, exactly (no float): "1250", 2, "USD" → "12.50 USD". */
function money(minor: string, digits: number, code: string): string {
  const padded = minor.padStart(digits + 1, '0');
  const whole = padded.slice(0, padded.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${digits === 0 ? whole : `${whole}.${padded.slice(padded.length - digits)}`} ${code}`;
}

const REASONS: Record<Exclude<LinkPageConfig['state'], 'form'>, [string, string]> = {
  not_found: [
    'Link not found',
    'This payment link does not exist. Check the address, or ask the seller for a new link.',
  ],
  deactivated: ['Link no longer available', 'The seller has turned this payment link off. Nothing was charged.'],
  expired: ['Link expired', 'This payment link has expired. Ask the seller for a new one. Nothing was charged.'],
  used_up: [
    'Link used up',
    'This payment link has reached the number of payments it allows. Ask the seller for a new one.',
  ],
  rate_limited: [
    'Too many attempts',
    'Too many payments were started from your network. Wait a few minutes, then open the link again.',
  ],
};

function show(config: LinkPageConfig): void {
  const code = config.currency ?? '';
  showMerchant(byId('merchant'), config.merchantName ?? '', config.merchantLogoUrl);
  byId('test-mode').hidden = config.live;
  if (config.state !== 'form') {
    const [title, text] = REASONS[config.state];
    byId('title').textContent = title;
    byId('unusable-text').textContent = text;
    byId('unusable').hidden = false;
    return;
  }
  byId('title').textContent = config.description ?? 'Pay';
  const items = byId('items');
  for (const line of config.lineItems) {
    const li = document.createElement('li');
    li.textContent = `${line.quantity} × ${line.name} — ${money(line.unitAmount, config.digits, code)}`;
    items.append(li);
  }
  items.hidden = config.lineItems.length === 0;
  if (config.amount === null) {
    const min = money(config.minAmount ?? '0', config.digits, code);
    const max = money(config.maxAmount ?? '0', config.digits, code);
    byId('amount-label').textContent = `Amount (${code})`;
    byId('amount-help').textContent = `From ${min} to ${max}.`;
    byId('amount-field').hidden = false;
    byId<HTMLInputElement>('amount').required = true;
  } else {
    byId('price').textContent = `${money(config.amount, config.digits, code)}${config.maxQuantity ? ' each' : ''}`;
    byId('price').hidden = false;
  }
  if (config.maxQuantity !== null) {
    const quantity = byId<HTMLInputElement>('quantity');
    quantity.max = String(config.maxQuantity);
    quantity.required = true;
    byId('quantity-help').textContent = `From 1 to ${config.maxQuantity}.`;
    byId('quantity-field').hidden = false;
  }
  if (config.error) {
    byId('form-error').textContent = config.error;
    byId('form-error').hidden = false;
  }
  byId('form').hidden = false;
}

const block = document.getElementById('paygate-config');
if (block?.textContent) show(JSON.parse(block.textContent) as LinkPageConfig);
