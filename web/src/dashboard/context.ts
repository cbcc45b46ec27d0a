/**
 * The contexts screens read. `DashboardContext` is the interface fixed between web-shell and web-screens
 * (/tmp/i16/web-common.md): a merchant screen reads the client, the selected merchant, its role and the mode.
 * `ShellContext` is the signed-in user's, for the screens that need no merchant (Security) and the shell itself.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { DashboardClient } from './api';
import type { DashboardSession } from './schemas';

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
  if (!value) throw new Error('useDashboard() outside the dashboard provider');
  return value;
}

export interface ShellContextValue {
  api: DashboardClient;
  /** Null before sign-in. */
  session: DashboardSession | null;
  /** Reads the session again (after 2FA changes, a membership change). */
  refreshSession(): Promise<void>;
  /** After sign-in or invitation acceptance. */
  signedIn(session: DashboardSession): void;
  navigate(path: string): void;
}

export const ShellContext = createContext<ShellContextValue | null>(null);

export function useShell(): ShellContextValue {
  const value = useContext(ShellContext);
  if (!value) throw new Error('useShell() outside the shell provider');
  return value;
}
