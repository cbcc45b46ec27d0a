import type { ComponentChildren } from 'preact';

export type Tone = 'neutral' | 'good' | 'warn' | 'bad' | 'info';

/** A short status word in a coloured pill; the colour repeats the word, it never replaces it. */
export function Badge(props: { tone?: Tone; children: ComponentChildren }) {
  return <span class={`badge ${props.tone ?? 'neutral'}`}>{props.children}</span>;
}

const TONES: Record<string, Tone> = {
  requires_action: 'neutral',
  processing: 'info',
  succeeded: 'good',
  delivered: 'good',
  failed: 'bad',
  expired: 'neutral',
  cancelled: 'neutral',
  pending: 'info',
  enabled: 'good',
  disabled: 'bad',
  refunded: 'warn',
  settled: 'good',
};

/** A status of the contract as a badge, in words (`label`, or the status with spaces). */
export function StatusBadge(props: { status: string; label?: string }) {
  return <Badge tone={TONES[props.status] ?? 'neutral'}>{props.label ?? props.status.replace(/_/g, ' ')}</Badge>;
}

/** A message about what just happened, announced politely. */
export function Notice(props: { children: ComponentChildren; tone?: 'info' | 'ok' | 'warn' }) {
  return (
    <div class={`notice notice-${props.tone ?? 'info'}`} role="status">
      {props.children}
    </div>
  );
}
