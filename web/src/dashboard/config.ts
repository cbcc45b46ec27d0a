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
  /** An explorer's transaction page, `{txId}` standing for the id; null or absent: no link. */
  explorerTxUrl?: string | null;
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
  /** The simulator's sample chain and token (test payments moved by the simulator pay with it). */
  simulated?: { caip2: string; name: string; asset: DashboardAsset };
}

/** The chains the screens name amounts and networks by: the configured ones, and the simulator's sample token. */
export function displayChains(config: DashboardPageConfig): DashboardChain[] {
  const { simulated } = config;
  if (!simulated) return config.chains;
  const known = config.chains.find((c) => c.caip2 === simulated.caip2);
  if (!known) {
    return [
      ...config.chains,
      { caip2: simulated.caip2, name: simulated.name, mode: 'test', assets: [simulated.asset] },
    ];
  }
  return config.chains.map((c) => (c === known ? { ...c, assets: [...(c.assets ?? []), simulated.asset] } : c));
}

export const DASHBOARD_CONFIG_ELEMENT_ID = 'paygate-config';
