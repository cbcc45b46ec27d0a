/** The dashboard contract's schemas the shell's screens name, from the generated types (type-only). */
import type { components } from '../generated/dashboard.js';

type Schemas = components['schemas'];
export type Role = Schemas['Role'];
export type Mode = Schemas['DashboardMode'];
export type DashboardSession = Schemas['DashboardSession'];
export type SignInResult = Schemas['SignInResponse'];
export type SessionInfo = Schemas['SessionInfo'];
export type TeamMember = Schemas['TeamMember'];
export type Invitation = Schemas['Invitation'];
export type AuditEntry = Schemas['AuditEntry'];
export type ApiKey = Schemas['ApiKey'];
export type Settings = Schemas['MerchantSettings'];
