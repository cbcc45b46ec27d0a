import { render } from 'preact';
import { CONFIG_ELEMENT_ID, LANGUAGES, type CheckoutPageConfig } from '../pageConfig.js';
import { App } from './App.js';
import './styles.css';

function readConfig(): CheckoutPageConfig {
  const element = document.getElementById(CONFIG_ELEMENT_ID);
  const parsed = JSON.parse(element?.textContent ?? 'null') as CheckoutPageConfig | null;
  if (!parsed) throw new Error('the checkout page has no configuration block');
  if (!(LANGUAGES as readonly string[]).includes(parsed.lang)) parsed.lang = 'en';
  return parsed;
}

render(<App config={readConfig()} />, document.getElementById('app')!);
