import { render } from 'preact';
import type { CheckoutPageConfig } from '../pageConfig.js';
import { App } from './App.js';

/** The app's chunk (main.tsx imports it, the HTML preloads it): the first render. */
export function start(config: CheckoutPageConfig): void {
  render(<App config={config} />, document.getElementById('app')!);
}
