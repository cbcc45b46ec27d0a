import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { DashboardClient } from './api.js';

export type Role = 'owner' | 'developer' | 'viewer';
export type Mode = 'test' | 'live';

export interface DashboardContextValue {
  api: DashboardClient;
  mode: Mode;
  role: Role;
  merchantId: string;
  navigate(path: string): void;
}

export const DashboardContext = createContext<DashboardContextValue | null>(null);

export function useDashboard(): DashboardContextValue {
  const value = useContext(DashboardContext);
  if (!value) throw new Error('useDashboard() is used outside the DashboardContext provider');
  return value;
}
