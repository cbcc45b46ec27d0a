/**
 * What the server tells the dashboard page about itself, in the page's JSON block (`#paygate-config`), which is data
 * and never executed: the page's CSP allows no inline script. Only what no dashboard operation answers goes here.
 */
export interface DashboardChain {
  /** CAIP-2, e.g. `eip155:8453`. */
  caip2: string;
  name: string;
  mode: 'test' | 'live';
  /** Its assets, so token amounts (minor units on the wire) are shown in whole tokens; absent from older servers. */
  assets?: DashboardAsset[];
}

export interface DashboardAsset {
  /** CAIP-19 without the `caip19/` prefix, as ledger and payout amounts name it. */
  caip19: string;
  symbol: string;
  decimals: number;
}

export interface DashboardPageConfig {
  /** The chains this server is configured for: the settlement-address rows of the Settings screen. */
  chains: DashboardChain[];
}

export const DASHBOARD_CONFIG_ELEMENT_ID = 'paygate-config';
