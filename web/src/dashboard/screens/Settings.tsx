import type { DashboardChain } from '../config';

export function Settings(_props: { chains: DashboardChain[] }) {
  return <h1>Settings</h1>;
}
