/**
 * An audit entry in words (issue 31 finding 13): what a merchant reads is "Invited a teammate as viewer", not the
 * operation id `createInvitation` and its JSON details. The server records only the fields a settings change changed
 * (server/src/routes/dashboard/updateSettings.ts), with from and to where they are short. An action this list does not
 * know yet is its id split into words, with its details as "name: value" pairs, never JSON.
 */
import type { AuditEntry } from '../../schemas.js';

type Details = Record<string, unknown>;

const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** "updateWebhookEndpoint" → "update webhook endpoint". */
export function words(id: string): string {
  return id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

const SETTING_NAMES: Record<string, string> = {
  name: 'name',
  iconUrl: 'logo',
  settlementAddresses: 'settlement addresses',
  collectData: 'collecting buyer data',
  requireTwoFactor: 'two-factor authentication for the team',
  settlementMode: 'settlement mode',
};

function settingValue(field: string, v: unknown): string {
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (v === null || v === undefined) return 'none';
  if (field === 'name') return `“${text(v)}”`;
  return text(v);
}

/** "name from “A” to “B”, settlement addresses" — only the fields that changed. */
function settingsChanges(details: Details): string {
  const fields = Array.isArray(details.fields) ? details.fields.map(text) : [];
  const changes = (details.changes ?? {}) as Record<string, { from?: unknown; to?: unknown }>;
  return fields
    .map((f) => {
      const name = SETTING_NAMES[f] ?? words(f);
      const change = changes[f];
      if (!change) return name;
      return typeof change.to === 'boolean'
        ? `${name} turned ${settingValue(f, change.to)}`
        : `${name} from ${settingValue(f, change.from)} to ${settingValue(f, change.to)}`;
    })
    .join(', ');
}

function settings(details: Details): string {
  const changed = settingsChanges(details);
  return changed === '' ? 'Saved the settings; nothing changed' : `Changed the settings: ${changed}`;
}

const apiKey = (d: Details) => `API key ${text(d.prefix)}…`;

const SENTENCES: Record<string, (d: Details) => string> = {
  updateSettings: settings,
  uploadLogo: () => 'Uploaded a new logo',
  removeLogo: () => 'Removed the logo',
  setSettlementMode: (d) => `Changed the settlement mode from ${text(d.from) || 'none'} to ${text(d.to)}`,
  createInvitation: (d) => `Invited a teammate as ${text(d.role) || 'member'}`,
  revokeInvitation: () => 'Withdrew an invitation',
  acceptInvitation: (d) => (d.role ? `Joined the team as ${text(d.role)}` : 'Joined the team'),
  updateMember: (d) => `Changed a member’s role from ${text(d.previousRole)} to ${text(d.role)}`,
  removeMember: (d) => (d.previousRole ? `Removed a ${text(d.previousRole)} from the team` : 'Removed a member'),
  createApiKey: (d) =>
    `Created ${d.mode === 'live' ? 'a live' : 'a test'} ${apiKey(d)}${d.canRefund === true ? ', allowed to refund' : ''}`,
  rotateApiKey: (d) => `Replaced API key ${text(d.revokedPrefix)}… with ${apiKey(d)}`,
  revokeApiKey: (d) => `Revoked ${apiKey(d)}`,
  createWebhookEndpoint: () => 'Added a webhook endpoint',
  updateWebhookEndpoint: () => 'Changed a webhook endpoint',
  deleteWebhookEndpoint: () => 'Deleted a webhook endpoint',
  rotateWebhookSecret: () => 'Replaced a webhook endpoint’s signing secret',
  sendTestEvent: () => 'Sent a test event',
  resendWebhookDelivery: () => 'Sent a webhook delivery again',
  resendFailedWebhookDeliveries: () => 'Sent the failed webhook deliveries again',
  replayWebhookEvents: () => 'Sent past webhook events again',
  cancelDashboardPayment: () => 'Cancelled a payment',
  refundDashboardPayment: () => 'Recorded a refund made outside Paygate',
  refundPayment: (d) => `Asked for an on-chain refund${d.destination === 'claim_link' ? ' by claim link' : ''}`,
  cancelRefund: () => 'Cancelled a refund claim link',
  simulateDashboardPayment: () => 'Moved a test payment with the simulator',
  activateTwoFactor: () => 'Turned on two-factor authentication',
  disableTwoFactor: () => 'Turned off two-factor authentication',
  regenerateRecoveryCodes: () => 'Made new recovery codes',
  revokeSession: () => 'Signed a session out',
  signInLocked: () => 'Sign-in locked after repeated failed attempts',
  signInWithRecoveryCode: () => 'Signed in with a recovery code',
};

/** Details of an action without a sentence: "role: viewer; prefix: pk_…", nested values left out. */
function plainDetails(details: Details | null): string {
  if (!details) return '';
  return Object.entries(details)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${words(k)}: ${String(v)}`)
    .join('; ');
}

export function describeAudit(entry: Pick<AuditEntry, 'action' | 'details'>): string {
  const details = (entry.details ?? {}) as Details;
  const sentence = SENTENCES[entry.action];
  if (sentence) return sentence(details);
  const rest = plainDetails(entry.details as Details | null);
  const what = words(entry.action);
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}${rest ? ` (${rest})` : ''}`;
}

const TARGET_NAMES: Record<string, string> = {
  id: '',
  paymentId: 'Payment',
  payoutId: 'Payout',
  endpointId: 'Webhook endpoint',
  deliveryId: 'Delivery',
  keyId: 'API key',
  userId: 'Member',
  sessionId: 'Session',
  invitationId: 'Invitation',
  refundId: 'Refund',
};

/** "endpointId=we_1&deliveryId=whd_2" → "Webhook endpoint we_1, Delivery whd_2". */
export function describeTarget(target: string | null): string | null {
  if (target === null) return null;
  return target
    .split('&')
    .map((part) => {
      const [name = '', value = ''] = part.split('=');
      const label = TARGET_NAMES[name] ?? words(name);
      return label === '' ? value : `${label} ${value}`;
    })
    .join(', ');
}
