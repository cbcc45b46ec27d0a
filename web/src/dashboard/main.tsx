import { render } from 'preact';
import { App } from './App';
import { DASHBOARD_CONFIG_ELEMENT_ID, type DashboardPageConfig } from './config';
import '../kit/kit.css';

function readConfig(): DashboardPageConfig {
  const element = document.getElementById(DASHBOARD_CONFIG_ELEMENT_ID);
  const parsed = JSON.parse(element?.textContent ?? 'null') as DashboardPageConfig | null;
  return {
    chains: Array.isArray(parsed?.chains) ? parsed.chains : [],
    ...(parsed?.simulated ? { simulated: parsed.simulated } : {}),
  };
}

render(<App config={readConfig()} />, document.getElementById('app')!);
